// Types of /assets/vendor/fflate.js, which the server takes from the installed fflate package (web/router.ts).
export { zipSync } from 'fflate';
