// Command empty is the floor for guard's start-up: a Go program that does
// nothing, built as guard is (make bench-startup measures it alongside).
package main

func main() {}
