// Package examples holds webgate's runnable example programs, each a main
// package in its own directory:
//
//   - embed: search over every provider that has a key with the parallel
//     policy, and read a page: fetch it safely, classify it, and extract it
//     with the extraction policy when a plain fetch cannot read it.
//   - custom-provider: add a search backend of your own by implementing
//     provider.Searcher, classify its failures into provider kinds, and
//     combine it with the built-in backends in a Parallel or Fallback policy.
//
// Run them with "go run ./examples/embed -help" and "go run
// ./examples/custom-provider -help". The package's tests build both programs
// and run them against fake providers and pages on 127.0.0.1.
package examples
