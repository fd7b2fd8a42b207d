// Package worker owns webgate's warm worker: a hook worker process that
// stays up between hook calls and answers them over a Unix socket, so that
// a call pays for the front's start-up and a round trip instead of the
// whole worker's start-up (the providers, the page reader, the store and
// the configuration loader it links), and for none of the configuration's
// loading and the store's opening, which the worker keeps between calls.
//
// The package holds all of it, and nothing of what a call is about:
//
//   - the protocol: a [Request] is a runtime's hook payload with the
//     caller's context (the hook, the environment, the working directory,
//     the moment the front started), framed by [WriteFrame] and
//     [ReadFrame]; a [Reply] is the hook's budget, then the decision (what
//     the hook writes on stdout and stderr, and its exit code);
//   - the client the fronts use, [Ask];
//   - the server, [Serve], which hands every call, as a [Call], to a
//     [Handler] the caller injects (package hookenv provides the hooks'
//     one) and knows nothing of hooks itself: the same Handler can be
//     served over another transport (HTTP, for a team) without a second
//     protocol;
//   - the lifecycle: [Start] starts a warm worker in the background, under
//     one lock that keeps at most [MaxWorkers] running per user and sweeps
//     what killed ones left; a warm worker exits when idle, when its socket
//     is removed or replaced, or when its binary changes;
//   - the file layout: [Layout] and [Files] name the socket, lock, pid and
//     start-marker files of the warm workers of a state directory, for the
//     server, the doctor and the tests alike;
//   - the world check: front and warm worker deal only with each other in
//     one [World] (user, namespaces, root and working directory,
//     confinement). A front sends a call to no listener of another, and
//     the warm worker refuses a caller of another, whose front then runs
//     the worker itself in its own world.
//
// A warm worker serves one working directory, one worker binary and one
// process environment ([ProcessEnv]; together they select its socket, see
// [SocketFor]); every call brings its own environment, from which the
// Handler loads the configuration, so that an answer is the one the exec'd
// worker would give. hooks.worker = off (WEBGATE_HOOKS_WORKER=off) turns
// the warm worker off.
//
// The package imports only the standard library: the front binaries
// (cmd/websearch, cmd/webfetch) link it, and must stay small.
package worker
