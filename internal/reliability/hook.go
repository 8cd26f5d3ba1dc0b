package reliability

// checkHistory, when set, sees every analysis before [Analyse] returns it,
// with the run's directory and options. The tests set it, once, before any
// test runs (linearizable_test.go): it checks the same history with
// porcupine, a public linearizability checker, records the verdict in
// Analysis.Linearizable and adds a violation when the two checkers
// disagree. Nothing else sets it.
var checkHistory func(dir string, o AnalyseOptions, a *Analysis)
