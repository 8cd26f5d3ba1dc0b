package bench

import (
	"fmt"
	"strings"
)

// fencedName is the subject of [RawRedisFenced].
const fencedName = "raw redis, fenced"

// fencedFloor returns the row of [RawRedisFenced], or nil.
func (r *Report) fencedFloor() *Row {
	for _, row := range r.Rows {
		if row.Subject.Name == fencedName && row.Uncontended.Pair.N > 0 {
			return row
		}
	}
	return nil
}

// fenced splits lock4go/redis's uncontended gap to the raw floor into what
// the fencing token costs (the fenced floor against the bare one) and what
// the library adds (lock4go against the fenced floor).
func (r *Report) fenced(b *strings.Builder) {
	ff, f := r.fencedFloor(), r.floor(Redis)
	if ff == nil || f == nil {
		return
	}
	b.WriteString("### Redis: the fencing token's share\n\n")
	b.WriteString("A lock4go lock carries a fencing token that grows across holders, which a bare `SET NX PX` cannot give: the token has to come from the server (its clock, TIME, read inside a script). *raw redis, fenced* is the least such a lock sends, one script (TIME, SET NX PX with the token in the value) and the compare-and-delete, so the gap between the two floors is the token's price and the gap above the fenced floor is the library's. Same run, same pairs as the table above.\n\n")
	b.WriteString("| subject | p50 | × raw floor | × fenced floor |\n|---|--:|--:|--:|\n")
	for _, row := range r.Rows {
		if row.Subject.Backend != Redis || row.Uncontended.Pair.N == 0 {
			continue
		}
		if row != ff && row.Subject.Kind != KindLock4go && row.Subject.Name != "bsm/redislock" {
			continue
		}
		p50 := uncontendedP50(row)
		vsRaw := ""
		if row != f {
			vsRaw = ratio(p50, uncontendedP50(f))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", name(row.Subject), dur(row.Uncontended.Pair.P50), vsRaw, ratio(p50, uncontendedP50(ff)))
	}
	b.WriteString("\n")
}
