# The pandas peer of the benchmark: one job per tool, done the way a pandas user would write it.
# Run with Debian's /usr/bin/python3 (python3-pandas, -openpyxl, -xlsxwriter, -xlrd):
#   pandas_job.py <job> <out dir> <input>...
# Jobs: csv, xlsx, json, stack, group-xlsx, group-csv, chunks-xlsx, chunks-csv, sql, merge-csv, merge-xlsx.
import os
import sqlite3
import sys

import pandas as pd


def read(path):
    if path.lower().endswith('.csv'):
        return pd.read_csv(path)
    if path.lower().endswith('.xml'):
        return pd.read_xml(path, parser='lxml')  # the row elements are found by the default XPath ./*
    if path.lower().endswith(('.html', '.htm')):
        return pd.read_html(path, flavor='lxml')[0]
    return pd.read_excel(path)  # openpyxl for .xlsx, xlrd for .xls


def base(path):
    return os.path.splitext(os.path.basename(path))[0]


def main():
    job, out, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    first = inputs[0]
    if job == 'csv':
        read(first).to_csv(os.path.join(out, base(first) + '.csv'), index=False)
    elif job == 'xlsx':
        read(first).to_excel(os.path.join(out, base(first) + '.xlsx'), index=False, engine='xlsxwriter')
    elif job == 'json':
        read(first).to_json(os.path.join(out, base(first) + '.json'), orient='records', force_ascii=False, date_format='iso', indent=2)
    elif job == 'stack':
        # The same job as merge-stack with its defaults: a source column naming each row's file.
        frames = [read(p).assign(**{'Archivo de origen': os.path.basename(p)}) for p in inputs]
        pd.concat(frames, ignore_index=True).to_excel(os.path.join(out, 'combinado.xlsx'), index=False, engine='xlsxwriter')
    elif job in ('group-xlsx', 'group-csv'):
        column = os.environ['BENCH_GROUP_COLUMN']
        for value, group in read(first).groupby(column, dropna=False):
            name = os.path.join(out, str(value))
            if job == 'group-xlsx':
                group.to_excel(name + '.xlsx', index=False, engine='xlsxwriter')
            else:
                group.to_csv(name + '.csv', index=False)
    elif job in ('chunks-xlsx', 'chunks-csv'):
        size = int(os.environ['BENCH_CHUNK_ROWS'])
        df = read(first)
        for n, start in enumerate(range(0, len(df), size), 1):
            part = df.iloc[start:start + size]
            name = os.path.join(out, 'parte-%03d' % n)
            if job == 'chunks-xlsx':
                part.to_excel(name + '.xlsx', index=False, engine='xlsxwriter')
            else:
                part.to_csv(name + '.csv', index=False)
    elif job == 'sql':
        # A SQL script of CREATE TABLE and INSERTs, as excel-to-sql writes: through an in-memory SQLite
        # database and its dump (one INSERT per row).
        con = sqlite3.connect(':memory:')
        read(first).to_sql('datos', con, index=False)
        with open(os.path.join(out, base(first) + '.sql'), 'w', encoding='utf-8') as f:
            for line in con.iterdump():
                f.write(line + '\n')
    elif job in ('merge-csv', 'merge-xlsx'):
        # merge-by-key with its defaults: a left join on the key column, keys as text (as the service compares).
        key = os.environ['BENCH_KEY_COLUMN']
        if job == 'merge-csv':
            left, right = pd.read_csv(inputs[0], dtype=str), pd.read_csv(inputs[1], dtype=str)
            left.merge(right, on=key, how='left').to_csv(os.path.join(out, base(first) + '-merged.csv'), index=False)
        else:
            left, right = read(inputs[0]), read(inputs[1])
            left.merge(right, on=key, how='left').to_excel(os.path.join(out, base(first) + '-merged.xlsx'), index=False, engine='xlsxwriter')
    else:
        sys.exit('unknown job ' + job)


main()
