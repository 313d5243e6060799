#!/usr/bin/env bash
# Wire analysis against tshark: every pcapgen scenario is read by
# tests/tools/wirecount (the library's decoder and TCP analysis) and by
# tshark, and the counts must agree: tcp.analysis.retransmission (fast and
# spurious ones included), duplicate_ack, out_of_order, zero_window, and
# for RoCEv2 the packets, CNPs and ECN-CE marks. Malformed and cut-short
# files must be read to the end without a crash. The same scenarios sent to
# a collector through GRE or as ERSPAN mirror copies must give tshark's
# counts on those files and ours on the direct ones, and 'ixperf wire'
# the same RoCE figures.
. "${top_srcdir:-.}/tests/lib.sh"

PCAPGEN=${PCAPGEN:-$(pwd)/tests/tools/pcapgen}
WIRECOUNT=${WIRECOUNT:-$(pwd)/tests/tools/wirecount}
[ -x "$PCAPGEN" ] && [ -x "$WIRECOUNT" ] ||
	ix_skip "tests/tools/pcapgen and wirecount are not built (they need libpcap)"
command -v tshark >/dev/null || ix_need "tshark is not installed (apt-get install tshark)"
echo "# $(tshark --version 2>/dev/null | head -1)"

J=$IX_TMP

# ours FILE KEY: a value from wirecount's key=value output.
ours() {
	sed -n "s/^$2=//p" "$1"
}

# tshark_fields FILE: the fields the counts below read, one line a frame,
# from one tshark pass over FILE kept beside it (tshark's start dominates).
#   1 frame  2-5 TCP analysis: retransmission, duplicate ACK, out of order,
#   zero window  6 UDP port  7 BTH opcode  8-9 ECN (IPv4, IPv6)  10 GRE
#   protocol  11 ERSPAN version  12-13 source address (IPv4, IPv6)
tshark_fields() {
	[ -s "$1.fields" ] ||
		tshark -n -r "$1" -T fields -e frame.number -e tcp.analysis.retransmission \
			-e tcp.analysis.duplicate_ack -e tcp.analysis.out_of_order \
			-e tcp.analysis.zero_window -e udp.dstport -e infiniband.bth.opcode \
			-e ip.dsfield.ecn -e ipv6.tclass.ecn -e gre.proto -e erspan.version \
			-e ip.src -e ipv6.src >"$1.fields" 2>/dev/null
	cat "$1.fields"
}

# tshark_tcp FILE: "frames retransmissions dup_acks out_of_order zero_windows".
tshark_tcp() {
	tshark_fields "$1" |
		awk -F'\t' '{ n++; if ($2 != "") r++; if ($3 != "") d++; if ($4 != "") o++
			if ($5 != "") z++ } END { printf "%d %d %d %d %d\n", n, r, d, o, z }'
}

# tshark_roce FILE: "roce_packets cnps roce_ce ecn_ce" (CE in any IP
# header: an outer and an inner one are listed together, "0,3").
tshark_roce() {
	tshark_fields "$1" |
		awk -F'\t' '{ ce = ($8 ~ /(^|,)3(,|$)/ || $9 ~ /(^|,)3(,|$)/)
			if ($6 == "4791") { r++; if (ce) rc++ }
			if ($7 == "129" || $7 == "0x81" || $7 == "0x00000081") c++
			if (ce) e++ } END { printf "%d %d %d %d\n", r, c, rc, e }'
}

# same DESCRIPTION OURS THEIRS
same() {
	check "$1: ours $2, tshark $3" test "$2" = "$3"
}

# compare NAME [N]: generate, count both ways, compare the TCP analysis.
compare() {
	local name=$1
	shift
	if ! "$PCAPGEN" "$name" "$J/$name.pcap" "$@"; then
		not_ok "pcapgen $name"
		return 1
	fi
	counted "$name"
}

# counted NAME: count $J/NAME.pcap both ways, compare the TCP analysis.
counted() {
	local name=$1 f="$J/$1.pcap" t
	if ! "$WIRECOUNT" "$f" >"$J/$name.out" 2>"$J/$name.err"; then
		not_ok "wirecount reads $name"
		cat "$J/$name.err" >&2
		return 1
	fi
	read -r -a t < <(tshark_tcp "$f")
	same "$name frames" "$(ours "$J/$name.out" packets)" "${t[0]}"
	same "$name retransmissions" "$(ours "$J/$name.out" tcp_retransmissions)" "${t[1]}"
	same "$name duplicate ACKs" "$(ours "$J/$name.out" tcp_dup_acks)" "${t[2]}"
	same "$name out-of-order" "$(ours "$J/$name.out" tcp_out_of_order)" "${t[3]}"
	same "$name zero windows" "$(ours "$J/$name.out" tcp_zero_window)" "${t[4]}"
}

# A clean connection has nothing to report.
compare tcp-clean
check "tcp-clean: no anomaly at all" test \
	"$(ours "$J/tcp-clean.out" tcp_retransmissions)$(ours "$J/tcp-clean.out" tcp_dup_acks)$(ours "$J/tcp-clean.out" tcp_out_of_order)$(ours "$J/tcp-clean.out" tcp_zero_window)" = 0000

# Every anomaly once or more: timeout and fast retransmissions, three
# duplicate ACKs, reordering, a zero window and its probe; a keep-alive
# and window updates that must not count.
compare tcp-retrans
check "tcp-retrans: 2 retransmissions, 3 dup ACKs, 1 out-of-order, 2 zero windows" test \
	"$(ours "$J/tcp-retrans.out" tcp_retransmissions)/$(ours "$J/tcp-retrans.out" tcp_dup_acks)/$(ours "$J/tcp-retrans.out" tcp_out_of_order)/$(ours "$J/tcp-retrans.out" tcp_zero_window)" = 2/3/1/2

# The same over IPv6 in VLAN tags, and over Linux cooked capture.
compare vlan-v6
check "vlan-v6: the anomalies are found through the tags" test \
	"$(ours "$J/vlan-v6.out" tcp_retransmissions)" = 2
compare sll
check "sll: the anomalies are found in cooked captures" test \
	"$(ours "$J/sll.out" tcp_retransmissions)" = 2

# Bulk flows with losses, fast retransmissions and reordering, cut by a
# 96-byte snaplen like tcpdump -s 96: nothing is malformed.
compare mixed-large 60000
check "mixed-large: retransmissions found" test "$(ours "$J/mixed-large.out" tcp_retransmissions)" -gt 0
check "mixed-large: snaplen-cut packets are not malformed" test \
	"$(ours "$J/mixed-large.out" malformed)" = 0

# RoCEv2: packets, CNPs, CE marks.
compare roce
read -r -a r < <(tshark_roce "$J/roce.pcap")
same "roce packets" "$(ours "$J/roce.out" roce_packets)" "${r[0]}"
same "roce CNPs" "$(ours "$J/roce.out" roce_cnp)" "${r[1]}"
same "roce ECN-CE" "$(ours "$J/roce.out" roce_ecn_ce)" "${r[2]}"
same "ECN-CE IP packets" "$(ours "$J/roce.out" ecn_ce)" "${r[3]}"
check "roce: 4 QPs counted one by one" test "$(ours "$J/roce.out" qps)" = 4
check "roce: CE marks and CNPs present" test "$(ours "$J/roce.out" roce_ecn_ce)" -gt 0 -a \
	"$(ours "$J/roce.out" roce_cnp)" -gt 0

# IP over InfiniBand (the link type, and Linux cooked captures of an IPoIB
# interface) and TCP inside VXLAN and Geneve: the same anomalies found
# through each, the overlays' outer CE marks kept.
for sc in ipoib ipoib-sll vxlan geneve; do
	compare "$sc"
	check "$sc: the anomalies are found through it" test \
		"$(ours "$J/$sc.out" tcp_retransmissions)/$(ours "$J/$sc.out" tcp_dup_acks)" = 2/3
done
# tshark_ce FILE: frames with CE in any IP header, and overlay frames.
tshark_ce() {
	tshark -n -r "$1" -T fields -e ip.dsfield.ecn -e ipv6.tclass.ecn -e vxlan -e geneve.vni \
		2>/dev/null | awk -F'\t' '{ if ($1 ~ /(^|,)3(,|$)/ || $2 ~ /(^|,)3(,|$)/) c++
			if ($3 != "" || $4 != "") o++ } END { printf "%d %d\n", c, o }'
}
for sc in vxlan geneve; do
	read -r -a e < <(tshark_ce "$J/$sc.pcap")
	same "$sc ECN-CE (outer or inner)" "$(ours "$J/$sc.out" ecn_ce)" "${e[0]}"
	same "$sc overlay packets" "$(ours "$J/$sc.out" overlay_packets)" "${e[1]}"
	check "$sc: the outer CE marks are the ones counted" test \
		"$(ours "$J/$sc.out" overlay_ecn_ce)" = "$(ours "$J/$sc.out" ecn_ce)" -a "${e[0]}" -gt 0
done

# Malformed frames between valid ones: read to the end, counted.
compare malformed
check "malformed: the bad frames are counted" test "$(ours "$J/malformed.out" malformed)" -ge 6
check "malformed: the valid ones still decode" test "$(ours "$J/malformed.out" tcp_packets)" -ge 8

# A file whose last record is cut in half: every complete packet is
# counted, the cut one as malformed, and tshark agrees on the rest.
"$PCAPGEN" truncated-file "$J/trunc.pcap" || not_ok "pcapgen truncated-file"
"$WIRECOUNT" "$J/trunc.pcap" >"$J/trunc.out" 2>"$J/trunc.err"
check "truncated-file: read without a crash" test "$?" = 0
check "truncated-file: the cut record is malformed" test "$(ours "$J/trunc.out" malformed)" -gt 0 -a \
	"$(ours "$J/trunc.out" truncated)" = 1
read -r -a t < <(tshark_tcp "$J/trunc.pcap")
same "truncated-file complete packets" "$(($(ours "$J/trunc.out" packets) - 1))" "${t[0]}"
same "truncated-file retransmissions" "$(ours "$J/trunc.out" tcp_retransmissions)" "${t[1]}"

# GRE and ERSPAN: a collector's captures of the scenarios above. tshark
# (4.0 here) decodes ERSPAN on GRE 0x88be and 0x22eb by default, type I
# (0x88be without a GRE sequence number: no ERSPAN header) included, so it
# needs no -d or -o; tshark_inner shows it saw the packets inside.

# tshark_inner FILE: "frames gre_frames inner_frames erspan_versions": the
# frames tshark decoded as GRE, those with an IP header inside the outer
# one, and the ERSPAN versions it read (none for type I).
tshark_inner() {
	tshark_fields "$1" | awk -F'\t' '{ n++; if ($10 != "") g++; v[$11] = 1
			c = 0; m = split($12 "," $13, a, ",")
			for (j = 1; j <= m; j++) if (a[j] != "") c++
			if (c >= 2) i++ }
			END { s = ""; for (k in v) if (k != "") s = s k
			      printf "%d %d %d %s\n", n, g, i, s == "" ? "-" : s }'
}

# wrapped SCENARIO KIND [OPTION...]: the scenario's frames through KIND
# (pcapgen --wrap, with its options), counted both ways, and every count
# the direct capture's.
wrapped() {
	local sc=$1 kind=$2 name t n= k v
	shift 2
	name="$sc.$kind$(printf '%s' "$*" | tr -d ' ')"
	[ "$sc" = mixed-large ] && n=60000
	if ! "$PCAPGEN" --wrap "$kind" "$@" "$sc" "$J/$name.pcap" ${n:+"$n"}; then
		not_ok "pcapgen --wrap $kind $* $sc"
		return 1
	fi
	counted "$name" || return 1
	read -r -a t < <(tshark_inner "$J/$name.pcap")
	case $kind in
	erspan2) v=1 ;;
	erspan3) v=2 ;;
	*) v=- ;;
	esac
	check "$name: tshark decodes every frame's GRE, ERSPAN version $v" test \
		"${t[1]}/${t[3]}" = "${t[0]}/$v"
	[ "$sc" = malformed ] ||
		check "$name: tshark sees the packet inside every frame" test "${t[2]}" = "${t[0]}"
	for k in packets malformed tcp_packets tcp_retransmissions tcp_dup_acks tcp_out_of_order \
		tcp_zero_window udp_packets ecn_ce roce_packets roce_ecn_ce roce_cnp qps; do
		v=$(ours "$J/$sc.out" "$k")
		check "$name $k: ours $(ours "$J/$name.out" "$k"), direct $v" test \
			"$(ours "$J/$name.out" "$k")" = "$v"
	done
	check "$name: every valid frame crossed the overlay" test \
		"$(ours "$J/$name.out" overlay_packets)" = \
		"$(($(ours "$J/$name.out" packets) - $(ours "$J/$name.out" malformed)))"
	if [ "$sc" = roce ]; then
		read -r -a t < <(tshark_roce "$J/$name.pcap")
		same "$name roce packets" "$(ours "$J/$name.out" roce_packets)" "${t[0]}"
		same "$name roce CNPs" "$(ours "$J/$name.out" roce_cnp)" "${t[1]}"
		same "$name roce ECN-CE" "$(ours "$J/$name.out" roce_ecn_ce)" "${t[2]}"
		same "$name ECN-CE IP packets" "$(ours "$J/$name.out" ecn_ce)" "${t[3]}"
	fi
}

# RoCE through every kind; TCP through each header layout once (an
# Ethernet frame in GRE and in ERSPAN I, an IP packet in GRE, ERSPAN III,
# both over IPv6).
for kind in gre gre-ip erspan1 erspan2 erspan3; do
	wrapped roce "$kind"
done
wrapped tcp-retrans gre
wrapped tcp-retrans erspan1
wrapped tcp-retrans erspan3 --outer6
wrapped roce erspan2 --outer6
wrapped tcp-retrans gre-ip --outer6
wrapped vlan-v6 erspan2
wrapped malformed erspan2
# The 96-byte snaplen: the collector's capture cut at the same byte of
# each frame, or the mirror session cutting its copies (the T bit) and the
# collector keeping them whole; 60,000 packets each, so once each (the
# small scenarios above take every kind).
wrapped mixed-large erspan2
wrapped mixed-large erspan3 --session-cut

# Through the command: 'ixperf wire' on a mirrored RoCE capture gives the
# direct capture's RoCE figures, bytes included (an ERSPAN copy counts as
# the frame it carries); through a GRE tunnel, bytes aside.
"$IXPERF" wire --json "$J/roce.pcap" >"$J/roce.json" 2>"$J/roce.err" ||
	not_ok "ixperf wire reads roce.pcap"
roce_figures() {
	jq -c ".results[0].wire | {packets, bytes, malformed, udp_packets, ecn_ce, roce_packets,
		roce_ecn_ce, roce_cnp, qps, qps_other, rdma} $2" "$1"
}
check "ixperf wire: the direct capture's RoCE figures, per QP and per direction" jq -e \
	'.results[0].wire | .roce_packets == 228 and (.qps | length) == 4 and (.rdma.flows | length) > 0' \
	"$J/roce.json"
for w in roce.erspan1 roce.erspan2 roce.erspan3 roce.erspan2--outer6 roce.gre; do
	"$IXPERF" wire --json "$J/$w.pcap" >"$J/$w.json" 2>"$J/$w.err"
	check "ixperf wire reads $w.pcap" test "$?" = 0
	d=
	[ "$w" = roce.gre ] && d='| del(.bytes, .rdma.total.bytes, .rdma.host_pairs[].bytes, .rdma.flows[].bytes)'
	direct=$(roce_figures "$J/roce.json" "$d")
	check "$w: ixperf wire gives the direct capture's RoCE figures" test \
		-n "$direct" -a "$(roce_figures "$J/$w.json" "$d")" = "$direct"
	check "$w: every packet an overlay packet" jq -e \
		'.results[0].wire | .overlay_packets == .packets and .overlay_packets > 0' "$J/$w.json"
done
schema_check "$J/roce.erspan3.json"

# Not a capture at all.
head -c 1000 /dev/urandom >"$J/junk.pcap"
"$WIRECOUNT" "$J/junk.pcap" >/dev/null 2>&1
check "a file that is not a capture is refused (exit 1)" test "$?" = 1

ix_done
