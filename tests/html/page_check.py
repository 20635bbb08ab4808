"""What a seektrace html page says, read back and held against report --json.

The page keeps every exact figure in data-v attributes (html_page.c); these
helpers parse a page (the file, or the DOM a browser serialized) and compare
its totals, file rows and site rows with the JSON of the same inputs.
"""
import html.parser
import re

COUNT_COLUMNS = ["kernel_read_bytes", "delivered_bytes", "requested_bytes", "amplification",
                 "wasted", "read_syscalls", "lseek_syscalls", "reread_bytes", "write_syscalls",
                 "kernel_write_bytes"]


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Page(html.parser.HTMLParser):
    """Tables by id: rows of cells, each (text, data-v); the totals by key;
    CSP metas; every attribute value (for URLs)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tables, self.totals, self.csp, self.attrs, self.ids = {}, {}, [], [], set()
        self.tags = {}
        self._table = None
        self._row = None
        self._cell = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        self.attrs.extend(v for _, v in attrs if v)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp.append(a.get("content", ""))
        if tag == "table":
            self._table = a.get("id")
            self.tables.setdefault(self._table, [])
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = [tag, "", a.get("data-v"), a.get("data-key")]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell)
            if self._table == "totals" and self._cell[3]:
                self.totals[self._cell[3]] = int(self._cell[2])
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._row and self._row[0][0] == "td":
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None


def merged_of(j):
    """The one report a JSON document stands for (a process or the merge)."""
    return j["merged"] if "merged" in j else j


def wasted(c):
    return max(c["kernel_read_bytes"] - c["delivered_bytes"], 0)


def row_figures(cells):
    """The data-v of the count columns, as numbers ('' for none)."""
    out = {}
    for name, cell in zip(COUNT_COLUMNS, cells):
        v = cell[2]
        out[name] = None if v in (None, "") else float(v) if name == "amplification" else int(v)
    return out


def expect_counts(fig, c, what):
    for k in COUNT_COLUMNS:
        want = wasted(c) if k == "wasted" else c.get(k)
        if k == "amplification":
            expect((want is None) == (fig[k] is None) and
                   (want is None or abs(fig[k] - want) <= 1e-5 * want),
                   f"{what}: amplification {fig[k]} != {want}")
        else:
            expect(fig[k] == want, f"{what}: {k} {fig[k]} != {want}")


def check_against_json(page, j, nprocesses):
    """Every total, file row and site row of the page equals the JSON's."""
    m = merged_of(j)
    t = m["totals"]
    counters = {k: v for k, v in t.items() if isinstance(v, int) and "amplification" not in k}
    for k, v in counters.items():
        expect(page.totals.get(k) == v, f"total {k}: page {page.totals.get(k)} != json {v}")
    expect(len(page.totals) == len(counters),
           f"the page has totals {sorted(page.totals)}")
    files = {r[0][1]: r for r in page.tables.get("files", [])}
    expect(len(files) == min(len(m["files"]), 1000),
           f"{len(files)} file rows for {len(m['files'])} files")
    for f in m["files"][:1000]:
        r = files.get(f["path"])
        expect(r is not None, f"no row for {f['path']}")
        expect_counts(row_figures(r[2:]), f, f["path"])
    sites = page.tables.get("sites", [])
    nsites = sum(len(f["sites"]) for f in m["files"])
    expect(len(sites) == min(nsites, 500), f"{len(sites)} site rows for {nsites} sites")
    # Each site row's figures are one of its file's sites'.
    by_file = {f["path"]: [s for s in f["sites"]] for f in m["files"]}
    for r in sites[:50]:
        fig = row_figures(r[3:])
        cands = by_file.get(r[1][1], [])
        expect(any(all(fig[k] == s[k] for k in ("kernel_read_bytes", "delivered_bytes",
                                                  "read_syscalls", "lseek_syscalls"))
                   for s in cands), f"site row {r[0][1]} on {r[1][1]} matches no site")
    procs = page.tables.get("processes", [])
    expect(len(procs) == min(nprocesses, 2000), f"{len(procs)} process rows, {nprocesses} ran")


def check_offline(text, where):
    """Nothing the page could fetch: a CSP forbidding it, no URL, no
    external resource."""
    page = Page(text)
    expect(page.csp and "default-src 'none'" in page.csp[0], f"{where}: no CSP: {page.csp}")
    expect(not any(("connect-src" in c or "font-src" in c) for c in page.csp),
           f"{where}: CSP opens something: {page.csp}")
    urls = re.findall(r"(?:https?|ftp|wss?)://", text)
    expect(not urls, f"{where}: {len(urls)} URLs in the page")
    expect(not page.tags.get("link") and not page.tags.get("iframe") and not page.tags.get("img"),
           f"{where}: external elements {page.tags}")
    expect(not any(v.startswith(("//", "url(")) for v in page.attrs), f"{where}: a remote attribute")
    expect("@import" not in text and "@font-face" not in text, f"{where}: CSS that loads")
    return page
