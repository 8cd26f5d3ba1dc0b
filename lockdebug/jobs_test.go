package lockdebug_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/lockdebug"
)

func TestJobsHandler_showsHolderAndAtLeastForEnd(t *testing.T) {
	e := memory.New(memory.Options{})
	defer e.Close()
	tpl, _ := lock4go.New(lock4go.Config{}, e)
	r, _ := jobs.New(tpl, jobs.Config{})
	res := r.Run(t.Context(), "nightly<b>", func(context.Context) error { return nil },
		jobs.AtMostFor(time.Minute), jobs.AtLeastFor(time.Minute))
	h := lockdebug.JobsHandler(r)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/debug/jobs?format=json", nil))
	var page struct {
		Jobs []struct {
			Name      string    `json:"Name"`
			Token     int64     `json:"Token"`
			HeldUntil time.Time `json:"HeldUntil"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		t.Fatal(err, rec.Body.String())
	}
	if len(page.Jobs) != 1 || page.Jobs[0].Token != res.Token || !page.Jobs[0].HeldUntil.Equal(res.HeldUntil) {
		t.Fatalf("jobs %+v, want nightly with token %d held until %v", page.Jobs, res.Token, res.HeldUntil)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/debug/jobs", nil))
	if body := rec.Body.String(); !strings.Contains(body, "nightly&lt;b&gt;") || strings.Contains(body, "nightly<b>") {
		t.Fatalf("the job's name is not escaped in the page:\n%s", body)
	}
}
