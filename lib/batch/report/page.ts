/**
 * The report page's shell: inline CSS, one inline script (sorting and filtering the line
 * table), and a Content-Security-Policy that allows nothing but those: no network, no other
 * script. The script is allowed by its SHA-256, so markup that slipped into the page (it must
 * not: everything is escaped) still could not run, inline handlers included.
 */
import { createHash } from 'node:crypto';
import { escapeHtml } from './escape.js';

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d1d1f;background:#fafafa}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.muted{color:#666}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.card{background:#fff;border:1px solid #e0e0e0;border-radius:6px;padding:8px 12px;min-width:110px}
.card b{display:block;font-size:19px}.card span{color:#666;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:14px}.chart{background:#fff;border:1px solid #e0e0e0;border-radius:6px;font-family:system-ui,sans-serif}
table{border-collapse:collapse;background:#fff;font-size:13px}th,td{border:1px solid #e3e3e3;padding:4px 7px;text-align:left;vertical-align:top}
th{background:#f0f0f0;position:sticky;top:0}th[data-col]{cursor:pointer}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.failed td.outcome,.bad{color:#b3261e;font-weight:600}.ok{color:#2f7d32;font-weight:600}
tr.changed{background:#fff6e0}details summary{cursor:pointer;color:#335}pre{white-space:pre-wrap;word-break:break-word;max-width:760px;margin:4px 0;font-size:12px;background:#f6f6f6;padding:6px}
.controls{margin:8px 0;display:flex;gap:12px;align-items:center}input[type=search]{padding:4px 8px;width:260px}
.diff .add{color:#1b6e20}.diff .del{color:#b3261e}.diff .hunk{color:#0b6a8a}.diff .file{font-weight:600}
ol.transcript{margin:4px 0;padding-left:22px;max-width:780px}ol.transcript li{margin:4px 0}ol.transcript li.user b{color:#335}ol.transcript li.call b{color:#6a3d9a}
`;

const SCRIPT = `(function(){
var table=document.getElementById('lines');
if(table){
var body=table.tBodies[0];var filter=document.getElementById('filter');var only=document.getElementById('only-changed');var shown=document.getElementById('shown');
var apply=function(){var q=filter?filter.value.toLowerCase():'';var n=0;
for(var i=0;i<body.rows.length;i++){var r=body.rows[i];var hit=(!q||r.textContent.toLowerCase().indexOf(q)>=0)&&(!only||!only.checked||r.classList.contains('changed'));r.hidden=!hit;if(hit)n++;}
if(shown)shown.textContent=String(n);};
if(filter)filter.addEventListener('input',apply);if(only)only.addEventListener('change',apply);
var heads=table.tHead.rows[0].cells;
for(var c=0;c<heads.length;c++){(function(th,col){if(!th.hasAttribute('data-col'))return;th.addEventListener('click',function(){
var desc=th.getAttribute('aria-sort')==='ascending';var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=a.cells[col].getAttribute('data-v');var y=b.cells[col].getAttribute('data-v');
var nx=x===null||x===''?NaN:Number(x),ny=y===null||y===''?NaN:Number(y);var d;
if(!isNaN(nx)||!isNaN(ny)){d=(isNaN(nx)?Infinity:nx)-(isNaN(ny)?Infinity:ny);}else{d=a.cells[col].textContent.localeCompare(b.cells[col].textContent);}
return desc?-d:d;});
for(var k=0;k<heads.length;k++)heads[k].removeAttribute('aria-sort');th.setAttribute('aria-sort',desc?'descending':'ascending');
for(var j=0;j<rows.length;j++)body.appendChild(rows[j]);});})(heads[c],c);}
apply();}
document.documentElement.setAttribute('data-report','ready');
})();`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

/** A whole page: `title` (escaped here) and `body` (already escaped HTML). */
export function page(title: string, body: string): string {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
${body}
<script>${SCRIPT}</script>
</body>
</html>
`;
}
