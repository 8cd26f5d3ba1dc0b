package turns

// IdleList lists the idle items of a table that keeps an item a while
// after its last use, oldest first: a key used again soon finds its item
// where it was, without a write to the table's map, and beyond the
// table's bound the oldest goes. Items carry their place in the list
// (an [IdleLink]), so listing one takes no allocation. The zero value is
// an empty list. It is not safe for concurrent use: its table guards it.
type IdleList[T any, P Idler[T]] struct {
	head, tail P
	n          int
}

// IdleLink is an item's place in an [IdleList].
type IdleLink[T any] struct {
	prev, next *T
	listed     bool
}

// Idler is a pointer to an item that carries its [IdleLink].
type Idler[T any] interface {
	*T
	Link() *IdleLink[T]
}

// Push lists x, which is not listed, as the newest.
func (l *IdleList[T, P]) Push(x P) {
	lk := x.Link()
	lk.prev, lk.next, lk.listed = l.tail, nil, true
	if l.tail == nil {
		l.head = x
	} else {
		l.tail.Link().next = x
	}
	l.tail = x
	l.n++
}

// Remove takes x, which is listed, out of the list.
func (l *IdleList[T, P]) Remove(x P) {
	lk := x.Link()
	if lk.prev == nil {
		l.head = lk.next
	} else {
		P(lk.prev).Link().next = lk.next
	}
	if lk.next == nil {
		l.tail = lk.prev
	} else {
		P(lk.next).Link().prev = lk.prev
	}
	*lk = IdleLink[T]{}
	l.n--
}

// Oldest returns the item listed first, or nil.
func (l *IdleList[T, P]) Oldest() P { return l.head }

// Len returns how many items are listed.
func (l *IdleList[T, P]) Len() int { return l.n }

// Listed reports whether the item of lk is listed.
func (lk *IdleLink[T]) Listed() bool { return lk.listed }
