// The contact fields of excel-to-vcard and the column titles that stand for them (tools.md), in Spanish and
// English. Titles are compared after lowercasing, removing accents, and turning `.`, `_`, `-` and runs of
// spaces into one space (`E-mail`, `e_mail`, `E mail` are one title); a list field also takes its title
// followed by a number (`Teléfono 2`).

export interface ContactField {
  /** The option that names its column(s). */
  id: string;
  /** Columns it takes at most; 1 is a single column. */
  max: number;
  titles: string[];
}

export const CONTACT_FIELDS: readonly ContactField[] = [
  { id: 'full-name', max: 1, titles: ['Nombre completo', 'Nombre y apellidos', 'Contacto', 'Full name', 'Display name', 'Contact'] },
  { id: 'first-name', max: 1, titles: ['Nombres', 'Nombre de pila', 'First name', 'Given name'] },
  { id: 'last-name', max: 3, titles: ['Apellidos', 'Apellido', 'Primer apellido', 'Segundo apellido', 'Apellido 1', 'Apellido 2', 'Last name', 'Surname', 'Family name'] },
  { id: 'org', max: 1, titles: ['Empresa', 'Compañía', 'Organización', 'Entidad', 'Company', 'Organization', 'Organisation'] },
  { id: 'job-title', max: 1, titles: ['Cargo', 'Puesto', 'Job title', 'Position'] },
  { id: 'phone', max: 5, titles: ['Teléfono', 'Tel', 'Tfno', 'Teléfono fijo', 'Phone', 'Telephone', 'Phone number', 'Work phone', 'Home phone'] },
  { id: 'mobile', max: 5, titles: ['Móvil', 'Celular', 'Teléfono móvil', 'Mobile', 'Mobile phone', 'Cell', 'Cell phone'] },
  { id: 'email', max: 5, titles: ['Email', 'E-mail', 'Correo', 'Correo electrónico', 'Mail', 'Email address'] },
  { id: 'address', max: 3, titles: ['Dirección', 'Domicilio', 'Calle', 'Address', 'Street'] },
  { id: 'city', max: 1, titles: ['Ciudad', 'Localidad', 'Población', 'Municipio', 'City', 'Town'] },
  { id: 'region', max: 1, titles: ['Provincia', 'Región', 'Comunidad autónoma', 'Estado', 'Province', 'Region', 'State'] },
  { id: 'postal-code', max: 1, titles: ['Código postal', 'CP', 'C.P.', 'Postal code', 'Postcode', 'ZIP', 'ZIP code'] },
  { id: 'country', max: 1, titles: ['País', 'Country'] },
  { id: 'birthday', max: 1, titles: ['Fecha de nacimiento', 'Cumpleaños', 'Nacimiento', 'Birthday', 'Birth date', 'Date of birth', 'DOB'] },
  { id: 'url', max: 1, titles: ['Web', 'Página web', 'Sitio web', 'Website', 'URL', 'Web page'] },
  { id: 'note', max: 1, titles: ['Notas', 'Nota', 'Observaciones', 'Comentarios', 'Notes', 'Note', 'Comments'] },
];

/** `Nombre` / `Name`: the first name when a last name is found, else the full name. */
const NAME_TITLES = new Set(['nombre', 'name']);

/** A title as detection compares it. */
export function titleForm(title: string): string {
  return title
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[._\-\s]+/g, ' ')
    .trim();
}

const BY_TITLE = new Map<string, ContactField>();
for (const f of CONTACT_FIELDS) for (const t of f.titles) BY_TITLE.set(titleForm(t), f);

/**
 * Fields for the columns of `titles` that `taken` (columns given as options) leaves free, in column order;
 * `counts` holds how many columns each field has already.
 */
export function detectFields(titles: readonly string[], taken: ReadonlySet<number>, counts: Map<string, number>): Map<number, string> {
  const found = new Map<number, string>();
  const names: number[] = [];
  const add = (col: number, f: ContactField) => {
    const n = counts.get(f.id) ?? 0;
    if (n >= f.max) return;
    counts.set(f.id, n + 1);
    found.set(col, f.id);
  };
  titles.forEach((title, col) => {
    if (taken.has(col)) return;
    const form = titleForm(title);
    if (NAME_TITLES.has(form)) return void names.push(col);
    const exact = BY_TITLE.get(form);
    if (exact) return add(col, exact);
    // `Teléfono 2`: a list field's title and a number.
    const numbered = /^(.*\S) ?\d+$/.exec(form);
    const listed = numbered ? BY_TITLE.get(numbered[1]) : undefined;
    if (listed && listed.max > 1) add(col, listed);
  });
  const name = (counts.get('last-name') ?? 0) > 0 ? CONTACT_FIELDS[1] : CONTACT_FIELDS[0];
  for (const col of names) add(col, name);
  return found;
}
