// Deterministic generated inputs, so no large file is committed.

/** A CSV of `rows` rows × 6 mixed columns (ids with leading zeros, accents, decimals, dates, booleans). */
export function bigCsv(rows: number): string {
  const cities = ['Madrid', 'Sevilla', 'A Coruña', 'Málaga', 'Bilbao'];
  const lines = ['id,ciudad,importe,fecha,activo,nota'];
  for (let i = 0; i < rows; i++) {
    const day = String((i % 28) + 1).padStart(2, '0');
    lines.push(`${String(i).padStart(7, '0')},${cities[i % 5]},${(i * 1.25).toFixed(2)},2024-03-${day},${i % 2 === 0},"texto, con coma ${i}"`);
  }
  return lines.join('\n') + '\n';
}
