package webpage

import (
	"context"
	"fmt"
	"github.com/webgate-dev/webgate/internal/lazyre"
	"strings"
	"unicode/utf8"

	"github.com/webgate-dev/webgate/classify"
	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/webpage/pdf"
)

// Order is the reading order: local tiers (recover, render, documents)
// and providers, in which order, or one of them alone.
type Order string

// The reading orders.
const (
	// LocalFirst reads locally first (recover the page's embedded data,
	// render it in a browser) and asks providers only when local reading
	// did not give a good enough result. The default.
	LocalFirst Order = "local-first"
	// ProvidersFirst asks providers first and reads locally when they
	// fail.
	ProvidersFirst Order = "providers-first"
	// LocalOnly never asks a provider.
	LocalOnly Order = "local-only"
	// ProvidersOnly never reads locally beyond the probe; a page that
	// needs more goes to the providers.
	ProvidersOnly Order = "providers-only"
)

// Orders lists every reading order.
var Orders = []Order{LocalFirst, ProvidersFirst, LocalOnly, ProvidersOnly}

// pages says "1 page" or "n pages".
func pages(n int) string {
	if n == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%d pages", n)
}

// pagesAre says "page is" or "n pages are", after "the first".
func pagesAre(n int) string {
	if n == 1 {
		return "page is"
	}
	return fmt.Sprintf("%d pages are", n)
}

// Renderer renders a page in a real browser and returns its DOM after
// scripts ran. Package webpage/browser provides one, browser.Renderer, over
// a local Chromium. A Renderer must honour
// ctx, apply the same address rule as the probe to every request the
// browser makes, and leave nothing running when it returns.
type Renderer interface {
	Render(ctx context.Context, rawURL string) (*Rendered, error)
}

// Rendered is a page rendered by a [Renderer].
type Rendered struct {
	// URL is the page's URL after redirects and script navigation.
	URL string
	// HTML is the rendered document.
	HTML []byte
}

// MinLocalChars is how much text a locally read page (recovered or
// rendered) must hold to count, when it is not a login wall, a bot
// challenge, a cookie wall or an error page.
const MinLocalChars = 200

// tier is one way of reading a page that needs more than the probe.
type tier struct {
	name string
	run  func(ctx context.Context, p *Plan, req Request) (*Result, error)
}

// tiers returns the tiers to try for p, in the reader's order.
func (r *Reader) tiers(p *Plan) []tier {
	var local []tier
	if p.isPDF {
		local = append(local, tier{"pdf", r.pdfTier})
	}
	html := p.HTML() && p.ProbeFailure == "" && p.Status >= 200 && p.Status < 300
	template := html && p.templateHeavy()
	renderable := r.Renderer != nil && p.ProbeFailure == "" && !p.Document()
	renderFirst := template && renderable && r.RenderTemplateHeavy
	if renderFirst {
		local = append(local, tier{"render", r.renderTier})
	}
	if template {
		local = append(local, tier{"structure", r.structureTier})
	}
	if html && (p.Verdict == nil || p.Verdict.Class != classify.FetchReadable || strings.TrimSpace(p.local.Markdown) == "") {
		local = append(local, tier{"recover", r.recoverTier})
	}
	if renderable && !renderFirst {
		local = append(local, tier{"render", r.renderTier})
	}
	provider := []tier{{"provider", r.providerTier}}
	switch r.order() {
	case ProvidersFirst:
		return append(provider, local...)
	case LocalOnly:
		return local
	case ProvidersOnly:
		return provider
	}
	return append(local, provider...)
}

func (r *Reader) order() Order {
	if r.Order == "" {
		return LocalFirst
	}
	return r.Order
}

// structureTier reads a template-heavy page as the Markdown of its useful
// structure (sections, link lists, teasers), converted from the HTML the
// probe read: the plan's own conversion when it already fell back to the
// structure, else a conversion made only when the tier runs, so a caller
// that stops after the plan (the web fetch hook before the native tool)
// pays nothing for it. A page whose main body the article conversion
// found ([articleFound]) is read as that article instead.
func (r *Reader) structureTier(_ context.Context, p *Plan, _ Request) (*Result, error) {
	doc := p.local
	if doc.Mode != ConvertStructure {
		// The plan's conversion chose the article; read the structure,
		// unless the article is most of what the page holds.
		structure := ConvertHTMLMode(p.body, p.FinalURL, ConvertStructure)
		if p.articleHolds(doc, structure) {
			if ok, _ := judgeLocal(doc.Markdown); ok {
				return &Result{Source: SourceLocal, Title: doc.Title, Content: doc.Markdown, Mode: doc.Mode}, nil
			}
		}
		doc = structure
	}
	if ok, why := judgeLocal(doc.Markdown); !ok {
		return nil, fmt.Errorf("the page's structure %s", why)
	}
	return &Result{Source: SourceLocal, Title: doc.Title, Content: doc.Markdown, Mode: doc.Mode,
		Note: "The page is mostly navigation and page template; this is its structure as served."}, nil
}

// articleHolds reports whether doc, the article conversion of the plan's
// page, is what the page holds rather than its structure: it reads a
// discussion's posts, or it found the page's main body ([articleFound]).
// A page whose <main> is a third links and much more than readability's
// pick (a shop's grid below the introduction readability kept,
// [Document.listed]) must pass as that <main> too. On the development
// split of the extraction benchmark: collection 0.7077 -> 0.7127, listing
// 0.7474 -> 0.7527, service 0.8453 -> 0.8459, article 0.9508 -> 0.9510,
// no type lower.
func (p *Plan) articleHolds(doc, structure Document) bool {
	if doc.Posts > 0 {
		return true
	}
	declared := p.Verdict != nil && p.Verdict.Article
	return articleFound(doc, structure, declared) && (doc.listed == nil || articleFound(*doc.listed, structure, declared))
}

// How much of a template-heavy page's structure its article conversion
// must hold, with how few links, for the page to be read as an article;
// a page that declares itself an article (og:type, JSON-LD) needs less.
// Chosen on the development split of the extraction benchmark (package
// cmd/internal/extractbench): articles read in structure mode fell from 90 of
// 793 to 14, mean word F1 rose, and link lists (a portal's, a forum
// index's), whose readability pick is mostly links, stay in structure
// mode. Since the structure says each block once, it holds less text and
// the share is 0.40 (0.35 before): service 0.789 -> 0.797, articles in
// structure mode still 13 of 793. Measured again once a page is judged
// by a <main> that is a third links and the structure keeps the prose
// after its <main>: every share from 0.37 to 0.39 gives the best mean
// (0.8752; 0.8749 at 0.36 and at 0.40, service 0.8439 under 0.37), and
// 0.38 is the middle of it: collection 0.7164 -> 0.7204, listing 0.7527
// -> 0.7512, every other type unchanged.
const (
	articleShare         = 0.38
	declaredArticleShare = 0.10
	maxArticleLinkShare  = 0.30
	// proseShare is how much of the text of the structure that is not
	// link text (its menus, sidebars and link lists left out) the article
	// must hold when it is a smaller share of the whole ([holdsProse]).
	proseShare = 0.90
)

// articleFound reports whether the article conversion of a page the
// classifier called template-heavy found the page's main body: its text
// is a large enough share of the text of the page's structure, or nearly
// all of its text that is not links ([holdsProse]), and it is mostly not
// links.
func articleFound(article, structure Document, declared bool) bool {
	if article.Mode != ConvertArticle || structure.TextChars == 0 {
		return false
	}
	share := float64(article.TextChars) / float64(structure.TextChars)
	if share < articleShare && !(declared && share >= declaredArticleShare) && !holdsProse(article, structure) {
		return false
	}
	return linkShare(article.Markdown) < maxArticleLinkShare
}

// holdsProse reports whether an article holds nearly all the text of a
// page's structure that is not link text: a short documentation page
// beside a long table of contents, a collection's intro beside its links.
// Measured on the development split of the extraction benchmark, with
// the share rule alone as the baseline: documentation 0.908 -> 0.913,
// collection 0.670 -> 0.676, every other type unchanged (0.80 and 0.60
// lose service pages).
func holdsProse(article, structure Document) bool {
	prose := float64(structure.TextChars) * (1 - linkShare(structure.Markdown))
	return prose > 0 && float64(article.TextChars) >= proseShare*prose
}

// linkShare is the share of Markdown's visible text that is link text.
func linkShare(md string) float64 {
	total := utf8.RuneCountInString(visibleText(md))
	if total == 0 {
		return 0
	}
	in := 0
	for _, m := range mdLink().FindAllStringSubmatch(md, -1) {
		in += utf8.RuneCountInString(visibleText(m[1]))
	}
	return float64(in) / float64(total)
}

// pdfTier reads a PDF document locally.
func (r *Reader) pdfTier(ctx context.Context, p *Plan, _ Request) (*Result, error) {
	if p.Truncated {
		return nil, fmt.Errorf("the document is larger than the read limit")
	}
	doc, err := pdf.Read(ctx, p.body, &r.PDF)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if doc.Title != "" {
		fmt.Fprintf(&b, "# %s\n\n", oneSpace(doc.Title))
	}
	for i, page := range doc.PageTexts() {
		if strings.TrimSpace(page) == "" {
			continue
		}
		fmt.Fprintf(&b, "[page %d]\n\n%s\n\n", i+1, strings.TrimSpace(page))
	}
	res := &Result{Source: SourceLocal, Title: oneSpace(doc.Title), Content: strings.TrimSpace(b.String()), Format: provider.Text}
	res.Note = fmt.Sprintf("A PDF document of %s, read locally (%s).", pages(doc.Pages), doc.Engine)
	if doc.Truncated || doc.PagesRead < doc.Pages {
		res.Note = fmt.Sprintf("A PDF document of %s, read locally (%s); only the first %s shown.", pages(doc.Pages), doc.Engine, pagesAre(doc.PagesRead))
	}
	return res, nil
}

// recoverTier reads the data an app shell embeds ([Recover]). When the
// page's own HTML already holds an article with more text than that data
// (a page the classifier took for a shell because of its scripts), the
// article is read instead.
func (r *Reader) recoverTier(_ context.Context, p *Plan, _ Request) (*Result, error) {
	if p.body == nil {
		return nil, fmt.Errorf("no page to recover from")
	}
	rec, found := Recover(p.body)
	if found && p.local.Mode == ConvertArticle && p.local.TextChars > utf8.RuneCountInString(visibleText(rec.Markdown)) {
		if ok, _ := judgeLocal(p.local.Markdown); ok {
			return &Result{Source: SourceLocal, Title: p.local.Title, Content: p.local.Markdown, Mode: ConvertArticle,
				Note: "The page loads scripts that may change it; this is the article its HTML holds as served."}, nil
		}
	}
	if !found {
		return nil, fmt.Errorf("the page embeds no readable data")
	}
	if ok, why := judgeLocal(rec.Markdown); !ok {
		return nil, fmt.Errorf("the page's embedded data %s", why)
	}
	return &Result{Source: SourceRecovered, Title: rec.Title, Content: rec.Markdown,
		Note: "Recovered from the data the page embeds for its scripts (" + strings.Join(rec.Sources, ", ") + "); the page was not rendered, so parts of it may be missing."}, nil
}

// renderTier renders the page in a browser and converts the rendered DOM.
func (r *Reader) renderTier(ctx context.Context, p *Plan, _ Request) (*Result, error) {
	target := p.FinalURL
	if target == "" {
		target = p.URL
	}
	page, err := r.Renderer.Render(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("rendering failed: %w", err)
	}
	// The rendered DOM is judged by its text, not by the classifier: an
	// app keeps its <noscript> notice and module scripts once rendered,
	// which the classifier, made for the HTML as served, reads as a shell.
	// A template-heavy page is read for its structure, as served or not.
	mode := ConvertAuto
	if p.templateHeavy() {
		mode = ConvertStructure
	}
	doc := ConvertHTMLMode(page.HTML, page.URL, mode)
	if ok, why := judgeLocal(doc.Markdown); !ok {
		return nil, fmt.Errorf("the rendered page %s", why)
	}
	return &Result{Source: SourceRendered, FinalURL: page.URL, Title: doc.Title, Content: doc.Markdown, Mode: doc.Mode}, nil
}

// providerTier asks the extraction providers.
func (r *Reader) providerTier(ctx context.Context, p *Plan, req Request) (*Result, error) {
	if r.Extractor == nil {
		return nil, errNoExtractor
	}
	// The reader checked the page's addresses before running the tier
	// ([Reader.privateTarget]).
	page, elapsed, err := r.extract(ctx, p.URL, req.Prompt)
	if err != nil {
		return &Result{ExtractElapsed: elapsed}, err
	}
	res := &Result{Source: SourceProvider, Content: page.Content, Provider: page.Provider, ExtractElapsed: elapsed, Format: page.Format}
	if t := oneSpace(page.Title); t != "" {
		res.Title = t
	}
	return res, nil
}

var errNoExtractor = fmt.Errorf("no extraction provider is configured")

// Signs of a page that is not the content asked for. They are checked only
// on short pages: a long article that mentions a password is an article.
var (
	wallChallenge = lazyre.New(`(?i)\b(verify (that )?you are (a )?human|checking (if the site connection is secure|your browser)|just a moment\.\.\.|enable (javascript and )?cookies to continue|attention required|are you a robot|captcha|access denied|request blocked|unusual traffic)`)
	wallLogin     = lazyre.New(`(?i)\b(sign in|log ?in|sign up|create an account)\b[\s\S]{0,400}\b(password|continue with (google|github|apple|email))\b|\b(password)\b[\s\S]{0,400}\b(sign in|log ?in)\b`)
	wallCookie    = lazyre.New(`(?i)\b(accept (all )?cookies|cookie (settings|preferences|consent)|we use cookies)\b`)
	wallError     = lazyre.New(`(?i)\b(404|page not found|not found|500 internal server error|service unavailable|bad gateway|this page (could not|can't|cannot) be found)\b`)
)

// judgeLocal decides whether locally read Markdown is the page's content:
// at least [MinLocalChars] characters of text, and, when short, not a
// login wall, a bot challenge, a cookie wall or an error page.
func judgeLocal(markdown string) (bool, string) {
	text := visibleText(markdown)
	n := utf8.RuneCountInString(text)
	if n < MinLocalChars {
		return false, fmt.Sprintf("has too little text (%d characters)", n)
	}
	if n < 2000 {
		switch {
		case wallChallenge().MatchString(text):
			return false, "is a bot challenge"
		case wallLogin().MatchString(text):
			return false, "is a login wall"
		case wallCookie().MatchString(text) && n < 800:
			return false, "is a cookie wall"
		case wallError().MatchString(text) && n < 800:
			return false, "is an error page"
		}
	}
	return true, ""
}

// mdLink matches a Markdown link or image, keeping its text.
var mdLink = lazyre.New(`!?\[([^\]]*)\]\([^)]*\)`)

// visibleText is Markdown without link targets and markup, for counting.
func visibleText(md string) string {
	md = mdLink().ReplaceAllString(md, "$1")
	return strings.Join(strings.Fields(strings.NewReplacer("#", " ", "*", " ", "`", " ", "|", " ", ">", " ", "-", " ").Replace(md)), " ")
}
