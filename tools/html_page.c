/* html_page.c — see html.h: the page around the sections. */
#define _GNU_SOURCE 1
#include <inttypes.h>

#include "html.h"
#include "units.h"

/* Nothing may be fetched: inline style and script only, images only as
 * data: URIs. */
static const char head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";

static const char style[] =
    "<style>\n"
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;"
    "margin:1.5em auto;max-width:1100px;padding:0 1em}\n"
    "h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin:1.6em 0 .4em;"
    "border-bottom:1px solid #ccc}\n"
    "code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em}\n"
    "table{border-collapse:collapse;margin:.4em 0;font-size:.9em}\n"
    "th,td{padding:.15em .6em;border-bottom:1px solid #e4e4e4;text-align:right}\n"
    "th{background:#f3f3f3;cursor:pointer;user-select:none;white-space:nowrap}\n"
    "td.l,th.l{text-align:left}td.l{word-break:break-all}\n"
    ".big{font-size:1.25em}.finding{background:#fff4e5;border-left:4px solid #e67e22;"
    "padding:.5em .8em;margin:.6em 0}\n"
    ".note{color:#666;font-size:.9em}svg{display:block;margin:.4em 0}\n"
    "svg text{font:11px system-ui,sans-serif;fill:#333}\n"
    ".kern{fill:#f0a35e}.rer{fill:#c0392b}.deliv{fill:#1f5fa8}.req{fill:#7aa6d8}\n"
    ".wk{stroke:#e67e22}.ws{stroke:#7f8c8d}.wt{stroke:#1f5fa8}.wk-dot{fill:#e67e22}"
    ".ws-dot{fill:#7f8c8d}.wt-dot{fill:#1f5fa8}h3{font-size:1em;margin:1em 0 .2em}\n"
    "@media print{body{max-width:none;margin:0}th{cursor:auto}"
    "h2,svg,tr{break-inside:avoid;page-break-inside:avoid}}\n"
    "</style>\n";

/* Click a header to sort by it; again to reverse. Cells sort by data-v
 * (the exact figure) when they have one. */
static const char script[] =
    "<script>\n"
    "document.querySelectorAll('table.sort th').forEach(function(th){\n"
    " th.addEventListener('click',function(){\n"
    "  var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,\n"
    "   d=th.dataset.d=th.dataset.d==='-1'?'1':'-1';\n"
    "  var key=function(r){var c=r.cells[i];return c.dataset.v!==undefined?c.dataset.v:"
    "c.textContent;};\n"
    "  Array.from(b.rows).sort(function(x,y){var a=key(x),c=key(y),p=Number(a),q=Number(c);\n"
    "   var k=(a!==''&&c!==''&&!isNaN(p)&&!isNaN(q))?(p<q?-1:p>q?1:0):a.localeCompare(c);\n"
    "   return k*d;}).forEach(function(r){b.appendChild(r);});\n"
    " });\n"
    "});\n"
    "</script>\n";

void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            /* Control bytes would make the page invalid. */
            fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
        }
    }
}

void html_begin(FILE *f, const char *title)
{
    fputs(head, f);
    fputs("<title>", f);
    html_text(f, title);
    fputs("</title>\n", f);
    fputs(style, f);
    fputs("</head><body>\n", f);
}

void html_end(FILE *f)
{
    fputs("<p class=\"note\">Made by seektrace " SEEKTRACE_VERSION
          ". Every figure is the one <code>seektrace report --json</code> gives; "
          "hover a cell for its exact value.</p>\n",
          f);
    fputs(script, f);
    fputs("</body></html>\n", f);
}

const char *html_bytes(char *buf, size_t size, uint64_t v)
{
    return st_fmt_bytes(buf, size, v);
}

void html_td_bytes(FILE *f, uint64_t v)
{
    char b[32];
    fprintf(f, "<td data-v=\"%" PRIu64 "\" title=\"%" PRIu64 " bytes\">%s</td>", v, v,
            st_fmt_bytes(b, sizeof b, v));
}

void html_td_count(FILE *f, uint64_t v)
{
    char b[32];
    fprintf(f, "<td data-v=\"%" PRIu64 "\">%s</td>", v, st_fmt_count(b, sizeof b, v));
}
