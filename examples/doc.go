// Package examples holds webgate's runnable example programs, each a main
// package in its own directory:
//
//   - embed: load the configuration, build the search policy and the page
//     reader from it in one call (assemble.Build), search the web and
//     read a page with them.
//   - custom-provider: add a search backend of your own by implementing
//     provider.Searcher, classify its failures into provider kinds, and
//     combine it with webgate's configured web search in a Parallel or
//     Fallback policy.
//
// Run them with "go run ./examples/embed -help" and "go run
// ./examples/custom-provider -help". The package's tests build both programs
// and run them against fake providers and pages on 127.0.0.1.
package examples
