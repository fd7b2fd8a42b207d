package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// articlePage returns an article's page whose content block holds, around
// the article, sections that are not the article: before it, extra; after
// it, after.
func articlePage(before, after string) string {
	var body strings.Builder
	for i, topic := range []string{"soil", "seeds", "watering", "light"} {
		fmt.Fprintf(&body, `<h2>Part %d: %s</h2><p>Tomatoes grown in pots need good %s above all else, and a gardener who gets it right is rewarded with a long harvest of sweet fruit through the summer.</p>
		<p>The %s matters more than the variety chosen: even the hardiest plant sulks when it is neglected, while a modest one thrives when it is looked after every week of the season.</p>`, i+1, topic, topic, topic)
	}
	return `<html><head><title>Growing tomatoes in pots</title></head><body><div class="post"><h1>Growing tomatoes in pots</h1>` +
		before + body.String() + after + `</div></body></html>`
}

func TestConvertHTML_AnArticleLeavesOutItsTableOfContentsRelatedPostsAndComments(t *testing.T) {
	toc := `<h2>Table of contents</h2><ul><li><a href="#p1">Part 1: soil</a></li><li><a href="#p2">Part 2: seeds</a></li><li><a href="#p3">Part 3: watering</a></li></ul>`
	var refs strings.Builder
	refs.WriteString(`<h2>References</h2><ol>`)
	for i := range 25 {
		fmt.Fprintf(&refs, `<li>Potter A%d. Pot tomatoes. 20%02d.</li>`, i, i)
	}
	refs.WriteString(`</ol>`)
	after := `<h2>Like this:</h2><p>Like Loading...</p>` + refs.String() + `<h2>Related posts</h2><ul><li><a href="/cucumbers">Cucumbers on a balcony</a></li><li><a href="/peppers">Peppers from seed</a></li></ul>
	<h3>3 comments:</h3><div><p>Ann said: lovely post, my tomatoes did well this year.</p><p>Bob said: what about blight?</p></div>`
	doc := markdown.Convert([]byte(articlePage(toc, after)), "https://garden.example/tomatoes", markdown.Options{Mode: markdown.ModeArticle})
	for _, want := range []string{"Part 1: soil", "Part 4: light", "long harvest of sweet fruit", "hardiest plant sulks"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the article lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"Table of contents", "References", "Pot tomatoes", "Related posts", "Cucumbers on a balcony", "Like Loading", "3 comments", "blight"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the article keeps %q:\n%s", noise, doc.Markdown)
		}
	}
}

// A heading that names end matter does not take the article with it: a
// table of contents ends at the first long paragraph, a short list of
// references is read with the article, and no section that holds half
// the content is left out.
func TestConvertHTML_AnArticleKeepsWhatItsEndMatterHeadingsDoNotCover(t *testing.T) {
	toc := `<h2>Contents</h2><p>This guide is long: it walks through each part of growing tomatoes in pots, from the soil you choose to the light they need.</p>`
	refs := `<h2>Sources</h2><ul><li>The potting handbook, second edition.</li><li>A season of container gardening.</li></ul>`
	doc := markdown.Convert([]byte(articlePage(toc, refs)), "https://garden.example/tomatoes", markdown.Options{Mode: markdown.ModeArticle})
	for _, want := range []string{"This guide is long", "Part 1: soil", "long harvest of sweet fruit", "The potting handbook"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the article lacks %q:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Contents") {
		t.Errorf("the article keeps its table of contents' heading:\n%s", doc.Markdown)
	}
}

func TestConvertHTML_AnArticleLeavesOutItsCaptionsShareAndNewsletterBoxes(t *testing.T) {
	extra := `<figure><figcaption>Tomato seedlings on a sill. Photo: Jane Roe / Agency</figcaption></figure>
	<figure><figcaption>Ripe cherry tomatoes hang in heavy trusses from a plant grown in a forty litre pot on a sunny south-facing balcony in late August, after a summer of steady watering. Photo: John Doe</figcaption></figure>
	<h2 id="newsletters-for-gardeners">Newsletters for gardeners</h2><p>Gardeners swap seeds and advice in online groups, which is how many of them first hear of a variety that suits pots.</p>
	<div class="post-share"><p>Share this on every network you use</p></div>
	<div class="newsletter-box"><p>Get our weekly letter of garden tips in your inbox</p></div>`
	page := strings.Replace(articlePage("", extra), "</head>", `<meta property="og:type" content="article"></head>`, 1)
	doc := markdown.Convert([]byte(page), "https://garden.example/tomatoes", markdown.Options{Mode: markdown.ModeArticle})
	for _, want := range []string{"Part 1: soil", "Newsletters for gardeners", "swap seeds and advice"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the article lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"Photo: Jane Roe", "Photo: John Doe", "Share this", "weekly letter"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the article keeps %q:\n%s", noise, doc.Markdown)
		}
	}
}

// A page that does not say it is an article keeps its captions: on a
// listing, a figure's caption is often the item's teaser.
func TestConvertHTML_APageThatIsNotAnArticleKeepsItsCaptions(t *testing.T) {
	extra := `<figure><figcaption>Tomato seedlings on a sill. Photo: Jane Roe / Agency</figcaption></figure>`
	doc := markdown.Convert([]byte(articlePage("", extra)), "https://garden.example/tomatoes", markdown.Options{Mode: markdown.ModeArticle})
	if !strings.Contains(doc.Markdown, "Photo: Jane Roe") {
		t.Errorf("the page lost its caption:\n%s", doc.Markdown)
	}
}

func TestConvertHTML_AnArticleLeavesOutItsAuthorBoxAndTableOfContentsBlock(t *testing.T) {
	toc := `<div class="ez-toc-container"><p>Jump to a part</p><ul><li>Soil</li><li>Seeds</li><li>Watering</li></ul></div>`
	bio := `<div class="author-box"><p>Jane Roe has grown vegetables on a city balcony for twenty years and writes about it weekly.</p></div>`
	doc := markdown.Convert([]byte(articlePage(toc, bio)), "https://garden.example/tomatoes", markdown.Options{Mode: markdown.ModeArticle})
	if !strings.Contains(doc.Markdown, "long harvest of sweet fruit") {
		t.Errorf("the article lacks its text:\n%s", doc.Markdown)
	}
	for _, noise := range []string{"Jump to a part", "Jane Roe has grown"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the article keeps %q:\n%s", noise, doc.Markdown)
		}
	}
}

// A collection's page read as its main content leaves out the listing's
// controls readability kept beside the items: the filter and facet
// panel, the sort bar, the breadcrumbs and the pagination. An item that
// a filter shows ("filter-active") and that carries schema.org microdata
// is content and stays.
func TestConvertHTML_AListingReadAsAnArticleLeavesOutItsFiltersAndSortBar(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Hiking boots | Outdoor shop</title></head><body><main>
	<div class="breadcrumbs"><a href="/">Home-crumb</a> / <a href="/shoes">Shoes-crumb</a></div>
	<h1>Hiking boots</h1>
	<div class="facet-filters"><h4>Brand-facet</h4><ul><li>Alpine-facet (12)</li><li>Ridge-facet (8)</li></ul><h4>Price range-facet</h4></div>
	<div class="sort-bar">Sort by relevance-sorting</div>`)
	for i := range 8 {
		fmt.Fprintf(&b, `<div class="item filter-active" itemscope itemtype="https://schema.org/Product"><h3>Trail boot model %d</h3>
		<p>A waterproof leather boot for long days on rough ground, with a stiff sole and a padded collar, model %d of the range.</p></div>`, i, i)
	}
	b.WriteString(`<div class="pagination"><a href="?page=2">Next-page-link</a></div>
	<p>Our hiking boots are chosen by guides who walk in them every season, and each pair is tested on the trails near our shop before it goes on sale.</p>
	</main></body></html>`)
	md := markdown.Convert([]byte(b.String()), "https://shop.example/boots", markdown.Options{Mode: markdown.ModeArticle}).Markdown
	for _, gone := range []string{"crumb", "facet", "relevance-sorting", "Next-page-link"} {
		if strings.Contains(md, gone) {
			t.Errorf("%q kept:\n%s", gone, md)
		}
	}
	for i := range 8 {
		if s := fmt.Sprintf("Trail boot model %d", i); !strings.Contains(md, s) {
			t.Errorf("%q lost:\n%s", s, md)
		}
	}
}

// A shop's page read as its main content leaves out the other products
// its headings announce: "People who viewed this item also viewed",
// "Frequently bought together", "Similar items".
func TestConvertHTML_AProductLeavesOutTheOtherProductsItsHeadingsAnnounce(t *testing.T) {
	for _, heading := range []string{"People who viewed this item also viewed", "Frequently bought together", "Similar items", "Recently viewed"} {
		after := `<h2>` + heading + `</h2><ul><li><a href="/p/2">Clay pot, 30 cm, terracotta</a> $12.00</li><li><a href="/p/3">Tomato cage, green steel</a> $8.50</li></ul>`
		doc := markdown.Convert([]byte(articlePage("", after)), "https://shop.example/p/1", markdown.Options{Mode: markdown.ModeArticle})
		if !strings.Contains(doc.Markdown, "Part 4: light") {
			t.Errorf("%s: the content was cut:\n%s", heading, doc.Markdown)
		}
		for _, noise := range []string{heading, "Clay pot", "Tomato cage"} {
			if strings.Contains(doc.Markdown, noise) {
				t.Errorf("%s: %q kept:\n%s", heading, noise, doc.Markdown)
			}
		}
	}
}
