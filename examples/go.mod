module github.com/lock4go/lock4go/examples

go 1.26.0

require github.com/lock4go/lock4go v0.0.0

replace github.com/lock4go/lock4go => ../
