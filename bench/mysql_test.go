package bench

import (
	"os"
	"strings"
	"testing"
)

// TestMySQL_run measures the MySQL subjects alone with the published plan
// (uncontended against the raw floor, contended, hand-off with 2 and 64
// waiters), for figures between full runs: LOCK4GO_BENCH_MYSQL=1 go test
// -run TestMySQL_run -v . (make bench measures them with the rest).
func TestMySQL_run(t *testing.T) {
	if os.Getenv("LOCK4GO_BENCH_MYSQL") != "1" {
		t.Skip("LOCK4GO_BENCH_MYSQL not set")
	}
	env, cat := catalog(t)
	var subjects []*Subject
	for _, s := range cat.Subjects {
		if s.Backend == MySQL {
			subjects = append(subjects, s)
		}
	}
	var log strings.Builder
	Run(t.Context(), env, &Catalog{Subjects: subjects}, DefaultPlan(), &log)
	t.Log("\n" + log.String())
}
