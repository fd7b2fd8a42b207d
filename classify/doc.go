// Package classify decides, from a page's initial HTML alone, how that page
// can be read: fetched and extracted as text, skimmed as a page of links, or
// only rendered in a browser.
//
// It looks at the HTML as served, before any JavaScript runs, and returns a
// [Result] holding one [Class], a confidence in [0, 1] and the [Signal]s
// behind the decision, so a user can see why. The classifier is
// deterministic, reads no environment or global state, uses no lists of
// host names, and never panics: any byte sequence, however broken, gets a
// class.
//
//	res, err := classify.Classify(resp.Body)
//	if err != nil { ... } // only read errors
//	fmt.Println(res.Class, res.Confidence)
//	for _, s := range res.Signals { fmt.Println(" ", s) }
//
// # Classes
//
//   - [FetchReadable]: the initial HTML already holds one main body of text —
//     an article, blog post, essay, paper, documentation or book chapter.
//     Server-rendered framework pages whose mount point is already full
//     (Next.js #__next with __NEXT_DATA__, Nuxt #__nuxt, Gatsby ___gatsby)
//     belong here.
//   - [TemplateHeavy]: navigation, link lists, teasers, product or thread
//     listings and portal blocks, with no single substantial body: homepages,
//     category, tag and search pages, forum indexes, shop listings, and blog
//     or news indexes made of short teasers.
//   - [BrowserRenderRequired]: the content appears only after JavaScript
//     runs: an empty mount point (#root, #app, #__nuxt, <app-root>…), a body
//     that is only a bundle or bootstrap script, or visible text that is only
//     a loader, unrendered {{ }} bindings or a skeleton, with the data kept
//     in script JSON.
//
// # How the decision is made
//
// One walk over the parsed document measures the page; text is attributed
// to its nearest block element (p, div, li, td, …). Words are counted as
// runs of letters; in scripts written without spaces (Chinese, Japanese,
// Thai, Burmese, …) two characters count as one word so thresholds hold
// across languages. Text in script, style, template, noscript, select and
// hidden elements is not visible text; dialogs (role=dialog, class
// "modal"), aria-hidden elements and elements of class "hide" or "hidden"
// count as hidden, since a script has to open them.
//
// A page with scripts, 25 or more visible form controls and buttons and
// fewer than 20 links is BrowserRenderRequired before anything else: it is
// an application's interface (settings, toolbars, tables to fill), whose
// views change by script rather than by links, whatever label text it
// carries.
//
// The page is FetchReadable when it has a main body that a logistic model
// scores as more likely readable than not. The body's container is chosen
// as readability tools do: each block of prose (8+ words, mostly not links)
// credits its parent in full, its grandparent by half and the next
// ancestor by a third, so one container of consecutive paragraphs
// outscores a list of separate excerpts. The body's size is then the long
// paragraphs (25+ words) that credited the container, counted in full, or
// its score if that is larger: an article whose paragraphs sit in
// sections, or in groups split by ad slots, counts whole.
//
// A body under 100 words is no body. A body that is a list of teasers is
// not read either: at least one linked title per two long paragraphs
// inside it, where a linked title is a heading that is mostly a link, or a
// paragraph's introduction by a short line that is mostly a link (a title
// link in a div, a dated headline). List items, and links right under an
// unlinked section heading ("Main article: …"), are not teaser titles.
//
// Any other body goes to the model. Its inputs weigh the body against what
// surrounds it: the body's size and paragraphs, its share of the words
// outside page chrome (nav, header, footer, aside) and its container's, the
// link density of the page and of its content, the links, list items, short
// link blocks and linked headings, the teasers in the body, the share of
// words in <p> and in long paragraphs, and article metadata (og:type or
// JSON-LD). Counts enter as logarithms. The weights are fitted, by
// L2-regularised logistic regression, on the development pages of the
// labelled corpora (articles, documentation, listings, shop and portal
// homepages, forum indexes), the regularisation chosen by cross-validation
// on those pages alone; the package's tests refit it, where the corpora are
// at hand, and check that the weights in use are that fit. It is fitted on
// readable and template-heavy pages whose body reaches it; each input is
// held within the range those pages span, so a page far outside them (no
// link at all, say) scores as the nearest of them would. An article's body
// is most of what its page says; a listing or portal with a long blurb
// holds it among far more links, tiles and teasers: the model weighs these
// together rather than one threshold at a time. The readable_score signal
// gives its log-odds and the inputs that weighed most.
//
// Otherwise the page is BrowserRenderRequired when it has scripts and
// either almost no text outside page chrome (under 50 words outside
// nav/header/footer/aside, with few links or some sign of an application),
// or little text (under 300 words) together with signs of a client-side
// application: an empty mount point, a "please enable JavaScript" notice,
// unrendered template bindings, framework state in scripts (__NEXT_DATA__,
// __NUXT__, Apollo or Redux state, ytInitialData, JSON data blocks), module
// scripts, many external scripts, loader text, or far more inline code than
// text. With an empty, well-known mount point, or with two or more
// unrendered {{ }} bindings (the page is the application's template), the
// page needs no low link count and one more sign. With ten or more
// unrendered bindings and one more sign, the page is an application's
// template whatever the amount of interface text around them (menus,
// dialogs, settings labels). Otherwise it needs fewer than 20 links (many
// links mean a page of navigation) and no rendered list: three or more
// linked headings outside page chrome show content the server already put
// in the page.
//
// Everything else is TemplateHeavy.
//
// # Signals
//
// Result.Signals lists the measurements: readable_score (when the model
// was asked), body_words, body_score,
// body_paragraphs, body_teasers (linked titles in the body), visible_words,
// content_words (outside page chrome), p_words, main_words,
// long_paragraphs (25+ words), link_density, content_link_density (outside
// page chrome), links, list_items, controls (form controls and buttons),
// body_share (body words over words outside page chrome), linked_headings,
// content_linked_headings, link_blocks (short link-dominated blocks),
// scripts, inline_script_bytes,
// and when present state_data, mounts, empty_mounts, js_notice,
// template_bindings, metadata (JSON-LD and og:type) and app_evidence. The
// signals that decided come first, with a note saying how.
//
// # Limits
//
// Input beyond [Options].MaxBytes (default [DefaultMaxBytes], 4 MiB) is
// ignored and the result is marked Truncated. Elements nested deeper than
// 1000 levels are not examined.
package classify
