// Package turns is the local queue of one process: the callers of a key
// take [Turns] (one holds the key's [Turn], the others wait in arrival
// order, the next one in its next place), so that the backend sees one
// waiter per process. An [IdleList] keeps the turns, and the memory
// executor's entries, that nobody holds or waits for.
package turns
