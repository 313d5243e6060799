#!/usr/bin/env bash
# The HTML report in a real browser: `ixperf report --format html` pages
# loaded by headless Chromium (verdict, checks table, heatmaps, hostile host
# names that must stay text, a screenshot) and a 1024-host mesh page that must
# stay under 10 MB (its load time is printed, not checked); the server's tree
# of a run's topology, and a mesh's fabric (up to 1024 hosts) as SVGs.
# Without Chromium the checks on what it renders are skipped, the rest run.
. "${top_srcdir:-.}/tests/lib.sh"

J=$IX_TMP
RUN="${top_srcdir:-.}/tests/data/html-run.json"
EVIL='<img src=x onerror=alert(1)>'
EVIL2='</script><img src=x onerror=alert(1)>'

"$IXPERF" report --help >/dev/null 2>&1 || ix_skip "this ixperf has no 'report' command yet"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || CHROMIUM=
NOBROWSER=
[ -n "$CHROMIUM" ] || NOBROWSER="chromium is not installed (Debian package chromium)"
NOPYTHON=
command -v python3 >/dev/null || NOPYTHON="python3 is not installed"

# check_unless REASON DESCRIPTION COMMAND...: check, or skip it for REASON.
check_unless() {
	local why=$1
	shift
	if [ -n "$why" ]; then skip_check "$1" "$why"; else check "$@"; fi
}

# in_browser DESCRIPTION COMMAND...: a check on what Chromium rendered.
in_browser() { check_unless "$NOBROWSER" "$@"; }

# chrome ARGS...: headless Chromium with a fresh profile, no network chatter
# (nothing without Chromium: the checks on its output skip).
chrome() {
	local profile
	[ -n "$CHROMIUM" ] || return 0
	profile=$(mktemp -d "$J/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--no-first-run --user-data-dir="$profile" "$@" 2>>"$J/chromium.err"
}

# report IN OUT: render one document to an HTML file.
report() {
	"$IXPERF" report --format html -o "$2" "$1" 2>"$J/report.err"
}

ms() { echo $(($(date +%s%N) / 1000000)); }

# is_png FILE: FILE starts with the PNG signature.
is_png() { [ "$(head -c 4 "$1" | tail -c 3)" = PNG ]; }

# absent STRING FILE: FILE does not contain STRING.
absent() { ! grep -qF -- "$1" "$2"; }

# No fetch of any kind: no URL, no src= attribute, url() only to #fragments.
self_contained() {
	! grep -qE 'https?://|<link|@import' "$1" &&
		! grep -oE '<[^>]*>' "$1" | grep -qiE '[[:space:]]src=' &&
		! grep -oE 'url\([^)]*\)' "$1" | grep -qv '^url(#'
}

# --- A run: verdict, checks table, charts, heatmap. ---------------------------
report "$RUN" "$J/run.html"
check "ixperf report --format html renders a run" test "$?" = 0 -a -s "$J/run.html"
check "the page is an HTML document" grep -q '^<!DOCTYPE html>' "$J/run.html"
check "the page fetches nothing" self_contained "$J/run.html"
chrome --dump-dom "$J/run.html" >"$J/run.dom"
in_browser "Chromium loads the run page" test -s "$J/run.dom"
in_browser "the verdict banner says FAIL" grep -q '<header class="banner fail"><div class="big">FAIL</div>' "$J/run.dom"
in_browser "the banner names the run" grep -q '<h1>local acceptance</h1>' "$J/run.dom"
rows=$(sed -n '/<table class="checks">/,/<\/table>/p' "$J/run.dom" | grep -c '<tr class=')
in_browser "the checks table has a row per check (7, got $rows)" test "$rows" = 7
in_browser "the failed expectation is shown with limit and measured value" \
	grep -q 'max_p99</code> ≤ 5.00 us.*measured 49.3 us <span class="badge fail">FAIL' "$J/run.dom"
in_browser "the mesh check has a heatmap" grep -q '<svg class="heatmap"' "$J/run.dom"
in_browser "latency percentiles are charted as one-way = RTT/2" \
	grep -q 'One-way latency percentiles (one-way = RTT/2)' "$J/run.dom"
in_browser "the bandwidth sweep is charted against message size" grep -q 'Bandwidth vs message size' "$J/run.dom"
in_browser "the incast diagnosis is shown" grep -q '<b>Diagnosis:</b>' "$J/run.dom"
in_browser "the host inventory is shown" grep -q 'Host inventory and environment' "$J/run.dom"
chrome --screenshot="$J/run.png" --window-size=1400,2000 "$J/run.html" >/dev/null
in_browser "Chromium takes a screenshot of the run page" test -s "$J/run.png"
in_browser "the screenshot is a PNG" is_png "$J/run.png"

# --- A single-command document (the sweep of the run as 'ixperf bw -a'). -----
jq '{schema_version, tool, host, time, command_line: ["ixperf", "bw", "-a"], command: "bw",
     complete, error: null, results: .results[0].checks[1].results}' "$RUN" >"$J/sweep.json"
report "$J/sweep.json" "$J/sweep.html"
chrome --dump-dom "$J/sweep.html" >"$J/sweep.dom"
rows=$(sed -n '/<table class="checks">/,/<\/table>/p' "$J/sweep.dom" | grep -c '<tr class=')
in_browser "a bw sweep document has one check per size (17, got $rows)" test "$rows" = 17
in_browser "and its bandwidth vs message size chart" grep -q 'Bandwidth vs message size' "$J/sweep.dom"

# --- Hostile host names stay text. ------------------------------------------------
jq --arg evil "$EVIL" '.results[0].checks[4].results as $r |
	{schema_version, tool, host: $evil, time, command_line: ["ixperf", "mesh", $evil],
	 command: "mesh", complete, error: null, results: $r}
	| .results[0].hosts[1] = $evil | .results[0].nodes[1].host = $evil
	| .results[0].nodes[1].suspect = true | .results[0].suspects = [$evil]' "$RUN" >"$J/evil.json"
report "$J/evil.json" "$J/evil.html"
check "a mesh with a hostile host name renders" test -s "$J/evil.html"
check "the hostile name is never written raw" absent "$EVIL" "$J/evil.html"
chrome --dump-dom "$J/evil.html" >"$J/evil.dom"
in_browser "the DOM has no <img element" absent "<img" "$J/evil.dom"
in_browser "the hostile name is shown as text" grep -qF '&lt;img src=x onerror=alert(1)&gt;' "$J/evil.dom"
check "the hostile suspect is marked" grep -qF '<b>&#9650; &lt;img' "$J/evil.html"
chrome --screenshot="$J/evil.png" --window-size=1400,2000 "$J/evil.html" >/dev/null
in_browser "Chromium takes a screenshot of the hostile page" test -s "$J/evil.png"

# --- Large meshes: canvas heatmap, hover, size and load time. -----------------
# Their documents are made by python3: without it these checks skip.
mesh_check() { check_unless "$NOPYTHON" "$@"; }
mesh_in_browser() { check_unless "${NOPYTHON:-$NOBROWSER}" "$@"; }

# mesh_doc N: the 4-host mesh scaled to N hosts; host 1 is hostile, host N/3
# slow (bad pairs, suspect), every 97th pair failed, one direction per pair.
mesh_doc() {
	[ -z "$NOPYTHON" ] || return 0
	python3 - "$1" "$EVIL2" "$J/evil.json" <<'EOF'
import json, sys
n, evil = int(sys.argv[1]), sys.argv[2]
doc = json.load(open(sys.argv[3]))
r = doc["results"][0]
hosts = ["10.%d.%d.%d:5301" % (i >> 16, (i >> 8) & 255, i & 255) for i in range(n)]
hosts[1] = evil
sus = n // 3
bw, lat, st, bad = [], [], [], []
for a in range(n):
    rb, rl, rs = [None] * n, [None] * n, ["none"] * n
    for b in range(n):
        if a == b or (a < b) != ((a + b) % 2 == 1):
            continue
        if (a * 7 + b) % 97 == 5:
            rs[b] = "failed"
            continue
        slow = sus in (a, b)
        rb[b] = 3e10 if slow else 9.5e10 - (a * 31 + b * 17) % 1000 * 1e7
        rl[b] = 15000.0 if slow else 5000.0 + (a + b) % 50
        rs[b] = "ok"
        if slow:
            bad.append({"from": hosts[a], "to": hosts[b], "bw_bps": rb[b],
                        "lat_p50_ns": rl[b], "retested": True})
    bw.append(rb); lat.append(rl); st.append(rs)
r.update(hosts=hosts, matrix={"bw_bps": bw, "lat_p50_ns": lat, "lat_p99_ns": lat, "state": st},
         nodes=[{"host": h, "error": None, "bw_out_bps": 9e10, "bw_in_bps": 9e10,
                 "lat_p50_ns": 5000.0, "measured": n - 1, "bad": n - 1 if i == sus else 0,
                 "suspect": i == sus} for i, h in enumerate(hosts)],
         bad_pairs=bad, suspects=[hosts[sus]], failures=[], median_bw_bps=9.5e10,
         min_lat_ns=5000.0, pairs={"planned": n * (n - 1) // 2, "measured": n * (n - 1) // 2,
                                   "failed": 0, "retested": len(bad)})
doc["host"] = "head"
json.dump(doc, sys.stdout, separators=(",", ":"))
EOF
}

# Hover: a mouse move over cell (row 1, column N/3) of the first canvas shows
# both host names and the value as text (copied into a <pre>, so escaped).
mesh_doc 48 >"$J/mesh48.json"
report "$J/mesh48.json" "$J/mesh48.html"
mesh_check "a 48-host mesh is drawn on a canvas" grep -q '<canvas class="hm"' "$J/mesh48.html"
[ -n "$NOPYTHON" ] || cat "$J/mesh48.html" - >"$J/hover.html" <<'EOF'
<pre id="hover"></pre><script>
(function(){var c=document.querySelector('canvas.hm'),R=c.getBoundingClientRect(),
s=R.width/c.width,z=+c.dataset.cell,a=1,b=16;
c.dispatchEvent(new MouseEvent('mousemove',{clientX:R.left+(8+b*z+z/2)*s,
clientY:R.top+(8+a*z+z/2)*s,bubbles:true}));
document.getElementById('hover').textContent=document.getElementById(c.id+'_tip').textContent;})();
</script>
EOF
chrome --dump-dom "$J/hover.html" >"$J/hover.dom"
hover=$(grep -o '<pre id="hover">[^<]*' "$J/hover.dom" | sed 's/<pre id="hover">//')
[ -n "${NOPYTHON:-$NOBROWSER}" ] || echo "# hover: $hover"
mesh_in_browser "hovering a cell names the pair and its value" \
	grep -qF '&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; → 10.0.0.16:5301 (suspect): ≈ 30.0 Gbit/s — bad pair' \
	<<<"$hover"
mesh_in_browser "the canvas page has no <img element" absent "<img" "$J/hover.dom"

mesh_doc 1024 >"$J/mesh1024.json"
report "$J/mesh1024.json" "$J/mesh1024.html"
size=$(stat -c %s "$J/mesh1024.html" 2>/dev/null || echo 0)
[ -n "$NOPYTHON" ] || echo "# 1024-host mesh report: $size bytes"
mesh_check "a 1024-host mesh report renders" test "$size" -gt 0
mesh_check "a 1024-host mesh report is under 10 MB ($size bytes)" test "$size" -lt 10000000
mesh_check "the 1024-host page fetches nothing" self_contained "$J/mesh1024.html"
mesh_check "the hostile name is escaped in the script data" \
	grep -qF '\u003c\u002fscript\u003e\u003cimg src=x onerror=alert(1)\u003e' "$J/mesh1024.html"
# The page's own cost, the 1024-host page's load less a small page's (so
# that Chromium's start is not counted), is printed: on a cold or busy
# machine it is no measure of the page.
chrome --dump-dom "$J/run.html" >/dev/null # warm the page cache
t0=$(ms)
chrome --dump-dom "$J/run.html" >/dev/null
t1=$(ms)
chrome --dump-dom "$J/mesh1024.html" >"$J/mesh1024.dom"
t2=$(ms)
[ -n "${NOPYTHON:-$NOBROWSER}" ] ||
	echo "# Chromium --dump-dom: the run page $((t1 - t0)) ms, the 1024-host page $((t2 - t1)) ms," \
		"$(((t2 - t1) - (t1 - t0))) ms more"
drawn=$(grep -o '_tip">hover over a cell for the pair and its value' "$J/mesh1024.dom" | wc -l)
mesh_in_browser "both 1024-host heatmaps were drawn (the script ran to its end: $drawn of 2)" test "$drawn" = 2
mesh_in_browser "the 1024-host DOM has no <img element" absent "<img" "$J/mesh1024.dom"

# --- The server's tree: a run's topology drawn as an SVG. --------------------
# tree_run LAYOUT: the run document with the topology of a fixture tree
# (tests/topo/mkfixture.py, as 'ixperf topo --json' reads it) as its own.
tree_run() {
	[ -z "$NOPYTHON" ] || return 0
	python3 "${top_srcdir:-.}/tests/topo/mkfixture.py" "$1" "$J/fx-$1" >/dev/null &&
		"$IXPERF" topo --sysfs "$J/fx-$1" --json >"$J/topo-$1.json" 2>/dev/null
	jq --slurpfile t "$J/topo-$1.json" '.results[0].topology = $t[0].results[0]' "$RUN"
}
tree_run downtrained >"$J/run-downtrained.json"
report "$J/run-downtrained.json" "$J/tree.html"
mesh_check "the run's page draws the server tree: 6 nodes, both downtrained links marked" bash -c "
	grep -q '<svg class=\"topotree\"' '$J/tree.html' &&
	grep -q '<p class=\"muted\">6 of 6 nodes shown; ' '$J/tree.html' &&
	[ \$(grep -c '<text class=\"tag\" [^>]*fill=\"#e03131\" font-weight=\"bold\">downtrained: Gen4 x8 of Gen5 x16</text>' '$J/tree.html') = 2 ]"
chrome --screenshot="$J/tree.png" --window-size=1200,2400 "$J/tree.html" >/dev/null
mesh_in_browser "Chromium draws the tree (screenshot)" is_png "$J/tree.png"
chrome --dump-dom "$J/tree.html" >"$J/tree.dom"
mesh_in_browser "the tree's SVG is in the rendered DOM" grep -q '<svg class="topotree"' "$J/tree.dom"
tree_run large >"$J/run-large.json"
report "$J/run-large.json" "$J/tree-large.html"
mesh_check "the large host's tree (447 nodes) is folded to 160 rows or fewer; healthy, nothing tagged" bash -c "
	n=\$(grep -o '\"muted\">[0-9]* of 447 nodes shown (folded: storage and other leaves first)' '$J/tree-large.html' |
		sed 's/^.muted.>//; s/ .*//') &&
	[ -n \"\$n\" ] && [ \"\$n\" -le 160 ] && ! grep -q 'downtrained: ' '$J/tree-large.html'"
# dgx-degraded: three links below both of their ends, each tagged on its
# port's row and its device's; GPU 19:00.0 idles at Gen1 and is not.
tree_run dgx-degraded >"$J/run-degraded.json"
report "$J/run-degraded.json" "$J/tree-degraded.html"
mesh_check "dgx-degraded's tree tags the 6 rows of its 3 downtrained links in red, and no other" bash -c "
	f='$J/tree-degraded.html' tag='<text class=\"tag\" [^>]*fill=\"#e03131\" font-weight=\"bold\">downtrained: '
	[ \$(grep -c \"\$tag\" \"\$f\") = 6 ] && [ \$(grep -c \"\${tag}Gen5 x8 of Gen5 x16<\" \"\$f\") = 2 ] &&
	[ \$(grep -c \"\${tag}Gen4 x16 of Gen5 x16<\" \"\$f\") = 2 ] &&
	[ \$(grep -c \"\${tag}Gen4 x2 of Gen4 x4<\" \"\$f\") = 2 ] && ! grep -q 'Gen1 x16 of' \"\$f\""
[ -z "${IX_KEEP_HTML:-}" ] || cp "$J/tree.png" "$J/tree-large.html" "$IX_KEEP_HTML/" 2>/dev/null

# --- The fabric: hosts under their LLDP switches, one uplink slow. ----------
# fabric_doc N PER: N hosts, PER under each leaf switch (as their agents'
# LLDP neighbours say), every pair with a host of leaf 3 at a third of the
# others' goodput; one direction per pair. Made up here, like mesh_doc.
fabric_doc() {
	[ -z "$NOPYTHON" ] || return 0
	python3 - "$1" "$2" "$J/evil.json" <<'EOF'
import json, sys
n, per = int(sys.argv[1]), int(sys.argv[2])
doc = json.load(open(sys.argv[3]))
r = doc["results"][0]
hosts = ["node%04d:5301" % i for i in range(n)]
leaf = lambda i: i // per
bw, lat, st = [], [], []
for a in range(n):
    rb, rl, rs = [None] * n, [None] * n, ["none"] * n
    for b in range(n):
        if a == b or (a < b) != ((a + b) % 2 == 1):
            continue
        slow = leaf(a) != leaf(b) and 3 in (leaf(a), leaf(b))
        rb[b] = 3e10 if slow else 9.5e10 - (a * 31 + b * 17) % 1000 * 1e7
        rl[b] = 5000.0 + (a + b) % 50
        rs[b] = "ok"
    bw.append(rb); lat.append(rl); st.append(rs)
nodes = [{"host": h, "error": None, "bw_out_bps": 9e10, "bw_in_bps": 9e10, "lat_p50_ns": 5000.0,
          "measured": n - 1, "bad": 0, "suspect": False,
          "link": {"iface": "eth0", "bps": 1e11, "source": "ethtool speed", "pcie": None,
                   "ceiling_bps": 1e11, "bottleneck": "link",
                   "neighbor": {"source": "lldp", "chassis": "02:00:00:00:%02x:00" % leaf(i),
                                "name": "leaf-%02d" % leaf(i), "port": "swp%d" % (i % per + 1)}}}
         for i, h in enumerate(hosts)]
r.update(hosts=hosts, matrix={"bw_bps": bw, "lat_p50_ns": lat, "lat_p99_ns": lat, "state": st},
         nodes=nodes, bad_pairs=[], suspects=[], failures=[], median_bw_bps=9.5e10,
         min_lat_ns=5000.0, pairs={"planned": n * (n - 1) // 2, "measured": n * (n - 1) // 2,
                                   "failed": 0, "retested": 0})
doc["host"] = "head"
json.dump(doc, sys.stdout, separators=(",", ":"))
EOF
}

fabric_doc 32 8 >"$J/fabric32.json"
report "$J/fabric32.json" "$J/fabric32.html"
mesh_check "a 32-host fabric is drawn: 4 switches, 32 hosts" bash -c "
	grep -q '<h3>Fabric (32 hosts under 4 switches, from LLDP)</h3>' '$J/fabric32.html' &&
	[ \$(grep -c '<rect class=\"host' '$J/fabric32.html') = 32 ]"
mesh_check "leaf-03's uplink alone is marked, no host" bash -c "
	[ \$(grep -c '<g class=\"sw bad\"><title>leaf-03 uplink: ' '$J/fabric32.html') = 1 ] &&
	[ \$(grep -c 'class=\"sw bad\"' '$J/fabric32.html') = 1 ] &&
	! grep -q 'class=\"host bad' '$J/fabric32.html'"
mesh_check "the fabric page fetches nothing" self_contained "$J/fabric32.html"
chrome --screenshot="$J/fabric32.png" --window-size=1200,1400 "$J/fabric32.html" >/dev/null
mesh_in_browser "Chromium draws the fabric page (screenshot)" is_png "$J/fabric32.png"
chrome --dump-dom "$J/fabric32.html" >"$J/fabric32.dom"
mesh_in_browser "the fabric SVG is in the rendered DOM" grep -q '<svg class="fabric"' "$J/fabric32.dom"
[ -z "${IX_KEEP_HTML:-}" ] || cp "$J/fabric32.html" "$J/fabric32.png" "$IX_KEEP_HTML/" 2>/dev/null

fabric_doc 1024 32 >"$J/fabric1024.json"
t0=$(ms)
report "$J/fabric1024.json" "$J/fabric1024.html"
t1=$(ms)
size=$(stat -c %s "$J/fabric1024.html" 2>/dev/null || echo 0)
fsize=$(sed -n '/<svg class="fabric"/,/<\/svg>/p' "$J/fabric1024.html" | wc -c)
[ -n "$NOPYTHON" ] || echo "# 1024-host fabric report: $size bytes (the fabric's SVG $fsize), rendered in $((t1 - t0)) ms"
mesh_check "a 1024-host fabric: 32 switches, leaf-03's uplink marked" bash -c "
	grep -q '<h3>Fabric (1024 hosts under 32 switches, from LLDP)</h3>' '$J/fabric1024.html' &&
	[ \$(grep -c 'class=\"sw bad\"><title>leaf-03 uplink' '$J/fabric1024.html') = 1 ]"
mesh_check "the 1024-host page is under 10 MB ($size bytes) and its fabric under 1 MB ($fsize)" \
	test "$size" -lt 10000000 -a "$fsize" -lt 1000000
t0=$(ms)
chrome --dump-dom "$J/fabric1024.html" >"$J/fabric1024.dom"
t1=$(ms)
[ -n "${NOPYTHON:-$NOBROWSER}" ] || echo "# Chromium --dump-dom of the 1024-host fabric page: $((t1 - t0)) ms"
mesh_in_browser "Chromium renders all 1024 hosts of the fabric" \
	test "$(grep -o '<rect class="host' "$J/fabric1024.dom" | wc -l)" = 1024
chrome --screenshot="$J/fabric1024.png" --window-size=1400,1400 "$J/fabric1024.html" >/dev/null
mesh_in_browser "and a screenshot of it" is_png "$J/fabric1024.png"
[ -z "${IX_KEEP_HTML:-}" ] || cp "$J/fabric1024.png" "$IX_KEEP_HTML/" 2>/dev/null

ix_done
