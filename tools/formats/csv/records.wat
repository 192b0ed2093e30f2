;; CSV records cut from a window of UTF-8 text by the grammar of csv/tokens.ts, for csv/records.ts: the same
;; records, field offsets and flags as its scanRecords loop, with the bytes of unquoted fields crossed 16 at a
;; time (SIMD compares). Built into records.wasm by `npm run build:wasm` (wabt); the tests check both match and
;; compare the records with the JavaScript loop's on generated files.
;;
;; Memory (fixed, 32 pages):
;;   0        the window's text, at most 65520 bytes (vector loads read up to 16 bytes past it)
;;   65536    what the call found: bytes taken (whole records), fields written, non-empty fields
;;   65552    per record, 5 x i32: start, end (before its line end), fields, flags (1 plain, 2 blank), first field
;;   1376256  per field, u16: its offset from its record's start
;;
;; Only whole records are taken: a record whose end the window does not show (its text runs past the window, a
;; quote that does not close in it, a CR that may be the first of a CRLF) ends the call, and so does a quote
;; that never closes before the end of the text, which the grammar reads as a plain character (the caller's own
;; loop reads that record).
(module
  (memory (export "mem") 32 32)
  ;; The layout, exported so that csv/records-wasm.ts reads it from here.
  (global $window (export "window") i32 (i32.const 65520))
  (global $head (export "head") i32 (i32.const 65536))
  (global $records (export "records_at") i32 (i32.const 65552))
  (global $fields (export "fields_at") i32 (i32.const 1376256))

  (func (export "records") (param $len i32) (param $last i32) (param $d i32) (result i32)
    (local $i i32) (local $k i32) (local $s i32) (local $c i32) (local $m i32) (local $q i32) (local $lim i32)
    (local $nrec i32) (local $nf i32) (local $used i32)
    (local $fields i32) (local $nonEmpty i32) (local $plain i32) (local $first i32)
    (local $special i32) (local $close i32) (local $end i32) (local $next i32) (local $rec i32)
    (local $v v128) (local $vd v128)
    (local.set $vd (i8x16.splat (local.get $d)))
    (block $stop
      (loop $records
        (br_if $stop (i32.ge_u (local.get $i) (local.get $len)))
        (local.set $fields (i32.const 0))
        (local.set $nonEmpty (i32.const 0))
        (local.set $plain (i32.const 1))
        (local.set $first (local.get $nf))
        (local.set $k (local.get $i))
        (block $emit
          (loop $field
            (local.set $fields (i32.add (local.get $fields) (i32.const 1)))
            (local.set $s (local.get $k))
            (i32.store16 (i32.add (global.get $fields) (i32.shl (local.get $nf) (i32.const 1))) (i32.sub (local.get $s) (local.get $i)))
            (local.set $nf (i32.add (local.get $nf) (i32.const 1)))
            (if (i32.and (i32.lt_u (local.get $k) (local.get $len)) (i32.eq (i32.load8_u (local.get $k)) (i32.const 34)))
              (then
                ;; Quoted: to the quote that closes (`""` inside is one quote).
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (local.set $special (i32.const 0))
                (block $closed
                  (loop $quoted
                    (br_if $stop (i32.ge_u (local.get $k) (local.get $len)))
                    (local.set $c (i32.load8_u (local.get $k)))
                    (if (i32.eq (local.get $c) (i32.const 34))
                      (then
                        (if (i32.ge_u (i32.add (local.get $k) (i32.const 1)) (local.get $len))
                          (then
                            (br_if $stop (i32.eqz (local.get $last)))
                            (br $closed)))
                        (br_if $closed (i32.ne (i32.load8_u (i32.add (local.get $k) (i32.const 1))) (i32.const 34)))
                        (local.set $special (i32.const 1))
                        (local.set $k (i32.add (local.get $k) (i32.const 2)))
                        (br $quoted)))
                    (if (i32.or (i32.eq (local.get $c) (local.get $d)) (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13))))
                      (then (local.set $special (i32.const 1))))
                    (local.set $k (i32.add (local.get $k) (i32.const 1)))
                    (br $quoted)))
                (local.set $close (local.get $k))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                ;; Then whatever follows the closing quote, to the delimiter or line end.
                (block $tailEnd
                  (loop $tail
                    (local.set $lim (i32.sub (local.get $len) (local.get $k)))
                    (if (i32.le_s (local.get $lim) (i32.const 0))
                      (then
                        (local.set $k (local.get $len))
                        (br $tailEnd)))
                    (local.set $v (v128.load (local.get $k)))
                    (local.set $m (i8x16.bitmask (v128.or (v128.or
                      (i8x16.eq (local.get $v) (local.get $vd))
                      (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))
                      (i8x16.eq (local.get $v) (v128.const i8x16 13 13 13 13 13 13 13 13 13 13 13 13 13 13 13 13)))))
                    (if (i32.lt_u (local.get $lim) (i32.const 16))
                      (then (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (local.get $lim)) (i32.const 1))))))
                    (if (i32.eqz (local.get $m))
                      (then
                        (local.set $k (i32.add (local.get $k) (i32.const 16)))
                        (br $tail)))
                    (local.set $k (i32.add (local.get $k) (i32.ctz (local.get $m))))))
                (br_if $stop (i32.and (i32.ge_u (local.get $k) (local.get $len)) (i32.eqz (local.get $last))))
                (if (i32.or (i32.gt_u (local.get $k) (i32.add (local.get $close) (i32.const 1))) (i32.eqz (local.get $special)))
                  (then (local.set $plain (i32.const 0))))
                (if (i32.or (i32.gt_u (local.get $k) (i32.add (local.get $close) (i32.const 1))) (i32.gt_u (local.get $close) (i32.add (local.get $s) (i32.const 1))))
                  (then (local.set $nonEmpty (i32.add (local.get $nonEmpty) (i32.const 1))))))
              (else
                ;; Unquoted: to the delimiter or line end; a quote on the way makes the record not plain.
                (block $fieldEnd
                  (loop $unquoted
                    (local.set $lim (i32.sub (local.get $len) (local.get $k)))
                    (if (i32.le_s (local.get $lim) (i32.const 0))
                      (then
                        (local.set $k (local.get $len))
                        (br $fieldEnd)))
                    (local.set $v (v128.load (local.get $k)))
                    (local.set $m (i8x16.bitmask (v128.or (v128.or
                      (i8x16.eq (local.get $v) (local.get $vd))
                      (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))
                      (i8x16.eq (local.get $v) (v128.const i8x16 13 13 13 13 13 13 13 13 13 13 13 13 13 13 13 13)))))
                    (local.set $q (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))))
                    (if (i32.lt_u (local.get $lim) (i32.const 16))
                      (then
                        (local.set $m (i32.and (local.get $m) (i32.sub (i32.shl (i32.const 1) (local.get $lim)) (i32.const 1))))
                        (local.set $q (i32.and (local.get $q) (i32.sub (i32.shl (i32.const 1) (local.get $lim)) (i32.const 1))))))
                    (if (i32.eqz (local.get $m))
                      (then
                        (if (local.get $q) (then (local.set $plain (i32.const 0))))
                        (local.set $k (i32.add (local.get $k) (i32.const 16)))
                        (br $unquoted)))
                    ;; A quote before the field's end: the bits below the end's.
                    (if (i32.and (local.get $q) (i32.sub (i32.and (local.get $m) (i32.sub (i32.const 0) (local.get $m))) (i32.const 1)))
                      (then (local.set $plain (i32.const 0))))
                    (local.set $k (i32.add (local.get $k) (i32.ctz (local.get $m))))))
                (br_if $stop (i32.and (i32.ge_u (local.get $k) (local.get $len)) (i32.eqz (local.get $last))))
                (if (i32.gt_u (local.get $k) (local.get $s))
                  (then (local.set $nonEmpty (i32.add (local.get $nonEmpty) (i32.const 1)))))))
            ;; The field's end: the end of the text (only when it is the last window), a delimiter or a line end.
            (if (i32.ge_u (local.get $k) (local.get $len))
              (then
                (local.set $end (local.get $len))
                (local.set $next (local.get $len))
                (br $emit)))
            (local.set $c (i32.load8_u (local.get $k)))
            (if (i32.eq (local.get $c) (local.get $d))
              (then
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (if (i32.ge_u (local.get $k) (local.get $len))
                  (then
                    ;; A delimiter that ends the text: one more field, empty.
                    (br_if $stop (i32.eqz (local.get $last)))
                    (local.set $fields (i32.add (local.get $fields) (i32.const 1)))
                    (i32.store16 (i32.add (global.get $fields) (i32.shl (local.get $nf) (i32.const 1))) (i32.sub (local.get $k) (local.get $i)))
                    (local.set $nf (i32.add (local.get $nf) (i32.const 1)))
                    (local.set $end (local.get $len))
                    (local.set $next (local.get $len))
                    (br $emit)))
                (br $field)))
            (local.set $end (local.get $k))
            (local.set $next (i32.add (local.get $k) (i32.const 1)))
            (if (i32.eq (local.get $c) (i32.const 13))
              (then
                (if (i32.ge_u (local.get $next) (local.get $len))
                  (then (br_if $stop (i32.eqz (local.get $last))))
                  (else
                    (if (i32.eq (i32.load8_u (local.get $next)) (i32.const 10))
                      (then (local.set $next (i32.add (local.get $next) (i32.const 1)))))))))))
        (local.set $rec (i32.add (global.get $records) (i32.mul (local.get $nrec) (i32.const 20))))
        (i32.store (local.get $rec) (local.get $i))
        (i32.store offset=4 (local.get $rec) (local.get $end))
        (i32.store offset=8 (local.get $rec) (local.get $fields))
        (i32.store offset=12 (local.get $rec) (i32.or (local.get $plain) (select (i32.const 2) (i32.const 0) (i32.eqz (local.get $nonEmpty)))))
        (i32.store offset=16 (local.get $rec) (local.get $first))
        (local.set $used (i32.add (local.get $used) (local.get $nonEmpty)))
        (local.set $nrec (i32.add (local.get $nrec) (i32.const 1)))
        (local.set $i (local.get $next))
        (br $records)))
    ;; What the last whole record left: a record cut short here is not counted.
    (if (i32.lt_u (local.get $i) (local.get $len))
      (then (local.set $nf (local.get $first))))
    (i32.store (global.get $head) (local.get $i))
    (i32.store offset=4 (global.get $head) (local.get $nf))
    (i32.store offset=8 (global.get $head) (local.get $used))
    (local.get $nrec)))
