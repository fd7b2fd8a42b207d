// Package browser renders web pages in a local headless Chromium and
// returns their DOM as HTML, for pages that show their content only after
// JavaScript runs. It needs no API key: only a Chromium on the machine
// (Debian's chromium-headless-shell, chromium, or Google Chrome).
//
//	page, err := browser.Render(ctx, "https://example.com/app", &browser.Config{
//		CheckAddress: func(a netip.Addr) error { return webpage.CheckAddress(a, false) },
//	})
//
// [Renderer] is the page reader's render tier: set it as
// webpage.Reader.Renderer, with the reader's address rule, and the reader
// renders the pages that need a browser (app shells, pages whose text
// scripts write) with Render.
//
// Each [Render] starts a fresh browser with an empty profile in a new
// temporary directory, loads the page, waits for it to settle, reads the
// DOM, and kills the browser. Nothing is shared between renders.
//
// A long-running process can keep browsers warm instead: with
// Config.Pool set (see [Pool]) a render takes a running browser and opens
// the page in a new browser context of it (an incognito profile: no
// cookies, storage, cache or permissions of an earlier render, disposed
// of when the render ends), which saves the browser's start, about half
// a second. The proxy applies the render's own address rule and records
// its own decisions; a render that fails, stops the page's scripts or
// loses the browser kills it rather than give it back, and the pool kills
// browsers it has not used for its idle time, and all when it is closed,
// as Render kills its own.
//
// # Finding the browser
//
// Config.Path names the browser: "" or "auto" looks on PATH for
// chromium-headless-shell, chromium, chromium-browser, google-chrome,
// google-chrome-stable and chrome, in that order; "off" disables rendering
// ([KindDisabled]); anything else is the program to run. [Find] applies
// the same rule. The package never reads the environment for its
// settings: callers map their own settings onto [Config].
//
// # The render
//
// The page has Config.NavigationTimeout to load until its DOM is parsed
// (DOMContentLoaded), then Config.SettleTimeout to settle. A page is
// settled when it shows some text and either no request has been in flight
// and its DOM has not changed, both for 30 % of Config.QuietWindow (150ms
// by default), with no WebSocket or EventSource opened or carrying a
// message for the whole window ([SettleStill]); or no request has been in
// flight for the whole quiet window ([SettleNetworkIdle]); or its DOM has
// not changed for the quiet window while it waits for no request started
// recently ([SettleDOMQuiet]), whichever comes first. A page that never
// settles is read when the settle timeout ends ([SettleTimeout]). Content a
// page shows only after a timer longer than 30 % of the quiet window, while
// it already shows other text and has no request in flight, is missed.
// Every wait ends early enough to read the page before Config.Timeout or
// the caller's deadline.
//
// The DOM is read from an isolated world the page's scripts cannot see or
// change: the doctype and the outerHTML of the document element. A DOM
// larger than Config.MaxDOMBytes is cut: [Page.HTML] holds its first
// MaxDOMBytes bytes, cut at a character boundary (possibly inside a tag),
// and [Page.Truncated] is set. The whole DOM is serialized inside the
// browser before it is cut, which takes about a second for 50 MB.
//
// # Hostile pages
//
// JavaScript dialogs (alert, confirm, prompt, beforeunload) are dismissed.
// New windows are refused (window.open returns null) and any window that
// still opens is closed unread. Downloads are denied. A script that keeps
// the browser's main thread busy for 5 seconds (an endless loop) is
// terminated and the page's scripts disabled; the page is then read as it
// is ([Page.ScriptsStopped]). The main frame may navigate at most
// Config.MaxNavigations times after its first load (HTTP redirects and
// navigations by scripts); one more fails the render.
//
// The browser runs in a process group of its own; on every way out of
// Render (success, error, timeout, cancellation, panic) the whole group is
// killed, any process started with the render's profile is killed too,
// and the temporary directory is removed. The browser gets none of the
// caller's environment (no API keys): only a home and a temporary
// directory inside the render's directory and a fixed PATH. On Linux the
// memory of the group is sampled every 100ms: the anonymous and
// shared-memory resident pages (RssAnon + RssShmem) of its processes,
// summed. The browser's binary, mapped into each process, is not counted:
// a small page measures about 80 MiB. Past Config.MaxMemoryBytes
// (default 1 GiB) the group is killed ([KindMemory]); the page's
// JavaScript heap is also limited to half of it. The peak is reported in
// [Page.PeakMemoryBytes]. Other systems kill the group but do not measure
// it.
//
// # Addresses
//
// Every connection the browser makes is checked by Config.CheckAddress on
// the address actually connected to. The browser is started with an HTTP
// proxy that Render runs on 127.0.0.1 (--proxy-server, and
// --proxy-bypass-list=<-loopback> so that not even loopback bypasses it):
// documents, redirects, sub-resources, fetch and XMLHttpRequest,
// WebSockets, frames, workers, prefetches and beacons all go through it,
// plain http as proxy requests and everything else (https, ws, wss) as
// CONNECT tunnels. The proxy dials every destination itself:
//
//   - a host written as an IP address, in any spelling resolvers accept,
//     is checked before anything is dialled ([StageLiteral]);
//   - a host name is resolved by Config.LookupIP (the system resolver by
//     default); a name that does not resolve is refused ([StageLookup]);
//   - every address is checked again on the socket, right before
//     connect(2) ([StageConnect]). The address checked is the address
//     connected to, so a DNS answer that changes between the check and the
//     connection (DNS rebinding) changes nothing, and a refused address is
//     never sent a packet.
//
// A refused destination gets no response: the browser sees a network
// error, never a body it could take for the page. A refused main document
// fails the render with [KindBlocked].
//
// The browser's own resolver answers nothing (--host-resolver-rules), so
// names are only resolved by the proxy. QUIC, DNS prefetching, hyperlink
// auditing pings, background networking, component updates, sync, crash
// reports and metrics are off, and WebRTC may only use proxied UDP, which
// an HTTP proxy does not carry: no UDP leaves the browser. The browser is
// driven over a pipe, so it opens no debugging port. Before a document
// request (a navigation of the page or of a frame) is sent, its scheme
// must be http, https, ws, wss, data, blob or about, and a host written
// as an address must pass the rule ([StageURL], [StageLiteral]). Every
// decision is recorded, in order, in [Page.Decisions] (and
// [Error.Decisions]).
//
// What remains possible, and how it is contained:
//
//   - The page can reach any destination the rule allows, as a browser
//     does: with the reader's rule, the public internet. It has nothing to
//     send there but the page itself: the profile is empty and thrown
//     away, and the browser has none of the caller's environment.
//   - The page can make the proxy resolve names it chooses, so a name can
//     carry data to a DNS server, and it can tell, from timing, a name that
//     does not resolve from one that resolves to a refused address. No
//     connection to a refused address follows.
//   - The page can reach the proxy's port only through the proxy itself,
//     which refuses it (and refuses loopback unless the rule allows it).
//   - Requests the browser makes for itself go through the same proxy and
//     the same rule.
//   - The rule is enforced by the browser's configuration and the proxy,
//     not by the kernel: code that takes over the browser (an exploit of
//     Chromium) can open sockets of its own. Keep Chromium up to date, and
//     run as a user other than root, so that Chromium keeps its sandbox
//     (as root it must run with --no-sandbox); run the renderer in a
//     network namespace or container for a boundary the browser cannot
//     cross.
//
// # Errors
//
// A render that gives no page returns an [*Error] with a [Kind]:
// [KindDisabled] and [KindNotFound] (no browser), [KindBadURL],
// [KindBlocked], [KindStart], [KindCrashed], [KindMemory],
// [KindTimeout], [KindCanceled] and [KindNavigation].
package browser
