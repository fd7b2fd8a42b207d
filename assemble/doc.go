// Package assemble builds what webgate runs from a loaded configuration:
// each provider backend with its key pool, the search and extraction
// policies over them, the page reader with its probe, classifier and
// local browser, and the memory over the configured store. It is the one
// construction path of every frontend (the hooks' worker, the CLI, the
// MCP server, the examples).
//
// Package config reads settings and links none of this: a program that
// only reads a setting does not link the browser driver, SQLite or
// Redis. A program that answers searches and reads pages loads the
// configuration with config, then builds here:
//
//	cfg, err := config.LoadFromOS()   // problems are reported, not fatal
//	mem, err := assemble.OpenMemory(ctx, cfg) // nil memory: remember nothing
//	stack, err := assemble.Build(cfg, &assemble.Options{Memory: mem})
//	res, err := stack.Searcher.Search(ctx, provider.Query{Text: "…"})
//
// [Build] leaves out the providers without keys; a policy without a
// provider is nil, and a hook then steps aside. [OpenMemory] returns a
// nil *memory.Memory when the store is off or cannot be opened, and nil
// remembers nothing: memory is an optimisation, never a dependency.
package assemble
