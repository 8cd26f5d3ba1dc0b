package lockdebug_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/lockdebug"
)

// Mount the handler on an internal mux; ?format=json serves scripts.
func ExampleHandler() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	l, err := tpl.Lock(context.Background(), "order:42")
	if err != nil {
		panic(err)
	}
	defer l.Release(context.Background())

	mux := http.NewServeMux()
	mux.Handle("GET /debug/locks", lockdebug.Handler(tpl))
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/debug/locks?format=json", nil))
	var page struct {
		Templates []struct {
			Held []struct {
				Key string `json:"key"`
			} `json:"held"`
		} `json:"templates"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
		fmt.Println(w.Code, err)
		return
	}
	fmt.Println(w.Code, page.Templates[0].Held[0].Key)
	// Output: 200 order:42
}
