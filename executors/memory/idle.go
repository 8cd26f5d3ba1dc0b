package memory

import "github.com/lock4go/lock4go/executor"

// A key's entry stays in the executor's map a while after it goes idle
// (nobody holds or waits for the key), so that a key locked again soon
// finds it there without a write to the map; the oldest idle entries
// leave the map beyond maxIdleEntries, and are kept for reuse.

// maxIdleEntries bounds the idle entries an executor keeps in its map, and
// those it keeps for reuse besides.
const maxIdleEntries = 64

// entryList is a list of idle entries, oldest first.
type entryList struct {
	head, tail *entry
	n          int
}

func (l *entryList) push(en *entry) {
	en.prev, en.next, en.listed = l.tail, nil, true
	if l.tail == nil {
		l.head = en
	} else {
		l.tail.next = en
	}
	l.tail = en
	l.n++
}

func (l *entryList) remove(en *entry) {
	if en.prev == nil {
		l.head = en.next
	} else {
		en.prev.next = en.next
	}
	if en.next == nil {
		l.tail = en.prev
	} else {
		en.next.prev = en.prev
	}
	en.prev, en.next, en.listed = nil, nil, false
	l.n--
}

// entry returns req's key's entry, made or taken out of the idle list, or
// an error when the key is in use otherwise than req asks (see
// entry.mismatch). The caller holds e.mu.
func (e *Executor) entry(req executor.Request) (*entry, error) {
	en := e.keys[req.Key]
	switch {
	case en == nil:
		en = e.newEntry(req.Key)
		e.keys[req.Key] = en
	case en.listed:
		e.idle.remove(en)
	default:
		return en, en.mismatch(req)
	}
	en.permits = req.Permits
	return en, nil
}

// newEntry returns an empty entry for key, reusing one when it can. The
// caller holds e.mu.
func (e *Executor) newEntry(key string) *entry {
	n := len(e.free)
	if n == 0 {
		return &entry{key: key}
	}
	en := e.free[n-1]
	e.free[n-1] = nil
	e.free = e.free[:n-1]
	en.key = key
	return en
}

// settle serves key's queue and lists its entry as idle once nobody holds
// or waits for the key: nothing else refers to an idle entry (a waiter
// refers to its entry while it is in the queue). After Close, which empties
// every entry, an idle entry is forgotten. The caller holds e.mu.
func (e *Executor) settle(key string, en *entry) {
	e.serve(en)
	if !en.idle() || en.listed {
		return
	}
	if e.closed {
		delete(e.keys, key)
		return
	}
	e.idle.push(en)
	if e.idle.n <= maxIdleEntries {
		return
	}
	old := e.idle.head
	e.idle.remove(old)
	delete(e.keys, old.key)
	if len(e.free) < maxIdleEntries {
		old.key = ""
		e.free = append(e.free, old)
	}
}
