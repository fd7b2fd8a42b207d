package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

func TestConvertHTML_AProductPageKeepsTheProductNotItsReviewsAndRecommendations(t *testing.T) {
	page := `<html><head><title>Trail 25 pack | Outfitters</title>
	<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail 25 pack","offers":{"@type":"Offer","price":"89.00"}}</script></head>
	<body><main><div class="product"><h1>Trail 25 pack</h1><p class="price">$89.00</p>
	<div class="description"><p>A light daypack with a padded hip belt, a hydration sleeve and a rain cover tucked in its base, made of recycled nylon that sheds a shower.</p></div>
	<table class="specs"><tr><th>Volume</th><td>25 litres</td></tr><tr><th>Weight</th><td>1 lb 9 oz</td></tr></table></div>
	<section class="product-reviews"><h2>Reviews</h2><div class="review"><p>Comfortable on long hikes and the hip belt pockets hold my phone and snacks without bouncing around.</p></div>
	<div class="review"><p>The rain cover saved my camera during a storm on the ridge; would buy again without hesitation.</p></div></section>
	<section class="recommendations"><h2>You may also like</h2><ul><li><a href="/p/1">Summit 40 pack</a> $129.00</li><li><a href="/p/2">Flash 18 pack</a> $59.00</li></ul></section>
	</main></body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://outfitters.example/p/trail-25", markdown.Options{Mode: mode})
		for _, want := range []string{"padded hip belt", "25 litres", "$89.00"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("%s: the product lacks %q:\n%s", mode, want, doc.Markdown)
			}
		}
		for _, noise := range []string{"Comfortable on long hikes", "rain cover saved", "Summit 40 pack", "You may also like"} {
			if strings.Contains(doc.Markdown, noise) {
				t.Errorf("%s: the product keeps %q:\n%s", mode, noise, doc.Markdown)
			}
		}
	}
}

// Readability reads one block of a product page, its description, and
// leaves out the product's name, price, features and specifications,
// which sit in blocks of their own; the page is then read for its
// structure.
func TestConvertHTML_AProductPageWhoseArticleIsItsDescriptionAloneIsReadWhole(t *testing.T) {
	var specs strings.Builder
	for _, s := range []string{"Frame: 6061 aluminium, hydroformed tubes", "Fork: carbon, tapered steerer, flat mount", "Groupset: 2x11 speed, hydraulic discs",
		"Wheels: tubeless ready, 28 mm internal width", "Tyres: 40 mm gravel, puncture protection", "Weight: 9.4 kg in size M",
		"Sizes: XS, S, M, L, XL with reach from 370 to 420 mm", "Colours: sage green, graphite, sand", "Bottle mounts: three, plus fork cages",
		"Max tyre clearance: 45 mm on 700c, 2.1 in on 650b", "Warranty: lifetime on the frame, two years on parts", "Bottom bracket: threaded BSA 68 mm"} {
		specs.WriteString("<li><span>" + s + "</span></li>")
	}
	// The page says it is a product in JSON-LD, or in its Open Graph
	// metadata alone.
	for name, head := range map[string]string{
		"JSON-LD":    `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Gravel One","offers":{"@type":"Offer","price":"1499.00"}}</script>`,
		"Open Graph": `<meta property="og:type" content="product"><meta property="product:price:amount" content="1499.00">`,
	} {
		page := `<html><head><title>Gravel One | Cycles</title>` + head + `</head>
	<body><div class="wrap"><div class="buybox"><h1>Gravel One</h1><span class="price">$1,499.00</span><span class="stock">In stock, ships in 2 days</span></div>
	<div class="tabs"><div class="tab"><span>Key features</span><ul>` + specs.String() + `</ul></div>
	<div class="tab"><span>Delivery</span><ul><li><span>Free delivery over $100 to the continental states</span></li><li><span>Thirty day returns, unridden and in the box</span></li></ul></div></div>
	<div class="description"><p>The Gravel One is the bike for the long way round: a stable, relaxed frame that climbs forest roads, rolls the tarmac home and carries what a weekend needs.</p>
	<p>Its frame mixes a long wheelbase with a short stem, so it tracks straight when loaded and still turns quickly on a narrow trail between the trees.</p></div>
	</div></body></html>`
		doc := markdown.ConvertHTML([]byte(page), "https://cycles.example/p/gravel-one")
		for _, want := range []string{"$1,499.00", "hydroformed tubes", "28 mm internal width", "long way round"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("%s: the product lacks %q:\n%s", name, want, doc.Markdown)
			}
		}
	}
}

// A product page says its blurbs twice (a tab and its copy for small
// screens, a sticky buy bar): the article says each once.
func TestConvertHTML_AProductPageSaysEachOfItsBlocksOnce(t *testing.T) {
	feature := "Colorful design that lets you shine: four colours to match your style, each with a matte aluminium finish that resists fingerprints."
	page := `<html><head><title>Tab Nine | Store</title>
	<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Tab Nine"}</script></head>
	<body><main><article><h1>Tab Nine</h1><p>A tablet with an 11 inch screen, a pen in the box and a battery that lasts a working day and then an evening of films on the sofa.</p>
	<div class="desktop"><h2>Design</h2><p>` + feature + `</p></div>
	<div class="mobile"><h2>Design</h2><p>` + feature + `</p></div>
	<p>Made for drawing and notes, it keeps its pen on its side with magnets and charges it there, so the pen is always ready when an idea comes.</p>
	</article></main></body></html>`
	doc := markdown.Convert([]byte(page), "https://store.example/tab-nine", markdown.Options{Mode: markdown.ModeArticle})
	if n := strings.Count(doc.Markdown, "Colorful design"); n != 1 {
		t.Errorf("the feature is said %d times:\n%s", n, doc.Markdown)
	}
}

// A product page whose <main> holds, beside the product's description,
// cards, plans and a grid of services: readability's pick, the
// description, holds most of the page's structure, and the page is not
// read as its whole <main> (the product fallback, which measures the
// pick against the page's structure, makes up for a pick that is too
// short).
func TestConvertHTML_AProductPageIsNotReadAsItsWholeMain(t *testing.T) {
	long := strings.Repeat("The pack carries a day's kit on a ventilated back panel, opens wide at the top, keeps a bladder sleeve apart from the main pocket and sheds rain with its coated fabric and taped seams. ", 4)
	care := strings.Repeat("Wash it by hand in cold water with a mild soap, let it dry in the shade with its pockets open, and store it loose, out of the sun, so that the coating and the foam of its straps last. ", 4)
	var cards strings.Builder
	for i := range 36 {
		fmt.Fprintf(&cards, `<div class="card"><h3>Service %d</h3><p>Task %d done.</p></div>`, i, i)
	}
	page := `<html><head><title>Trail 25 pack - Outdoor Store</title>
	<meta property="og:type" content="product"></head><body>
	<header><nav><a href="/">Home</a> <a href="/packs">Packs</a></nav></header>
	<main>
	<section class="hero"><h1>Trail 25 pack</h1><p>89 euros, in stock.</p></section>
	<section class="promo-grid"><h2>Why it matters</h2>
	<div class="card"><h3>Dry</h3><p>Sheds rain.</p></div>
	<div class="card"><h3>Light</h3><p>Under a kilo.</p></div>
	</section>
	<div class="row"><div class="container"><section class="detail"><h2>About the pack</h2><p>` + long + `</p><p>` + care + `</p></section></div></div>
	<section class="services-grid"><h2>What we do</h2>` + cards.String() + `</section>
	</main>
	<footer><p>Outdoor Store, all rights reserved.</p></footer></body></html>`
	doc := markdown.ConvertHTML([]byte(page), "https://store.example/trail-25")
	if !strings.Contains(doc.Markdown, "ventilated back panel") {
		t.Errorf("the page lacks the product's description:\n%s", doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "Service 17") {
		t.Errorf("the page is read with the rest of its <main> (%s, %d):\n%s", doc.Mode, doc.TextChars, doc.Markdown)
	}
}

// A shop whose class names are generated names a carousel of other
// products only in its heading.
func TestConvertHTML_AProductPageLeavesOutOtherProductsItsHeadingsName(t *testing.T) {
	page := `<html><head><title>Trail 25 pack | Outfitters</title>
	<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail 25 pack","offers":{"@type":"Offer","price":"89.00"}}</script></head>
	<body><main><div class="x7Fa"><h1>Trail 25 pack</h1><p class="q2Lm">$89.00</p>
	<div class="k9Pz"><p>A light daypack with a padded hip belt, a hydration sleeve and a rain cover tucked in its base, made of recycled nylon that sheds a shower.</p>
	<p>Its back panel is a mesh that keeps a gap between the pack and your back, and the shoulder straps carry a whistle on the sternum strap.</p>
	<p>Two stretch pockets on the sides hold a bottle each, a zipped lid pocket keeps keys and a map dry, and a loop at the base carries a pair of trekking poles.</p></div>
	<table class="r4Tt"><tr><th>Volume</th><td>25 litres</td></tr><tr><th>Weight</th><td>1 lb 9 oz</td></tr></table></div>
	<div class="u8Ks"><div class="m3Qe"><h2 class="tr7D">People who viewed this item also viewed</h2>
	<ul><li><a href="/p/1">Summit 40 pack with a roll-top closure and side pockets</a> $129.00</li><li><a href="/p/2">Flash 18 pack, light and foldable into its own pocket</a> $59.00</li></ul></div></div>
	</main></body></html>`
	for _, mode := range []markdown.Mode{markdown.ModeArticle, markdown.ModeStructure} {
		doc := markdown.Convert([]byte(page), "https://outfitters.example/p/trail-25", markdown.Options{Mode: mode})
		for _, want := range []string{"padded hip belt", "trekking poles"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("%s: the product lacks %q:\n%s", mode, want, doc.Markdown)
			}
		}
		for _, noise := range []string{"Summit 40 pack", "Flash 18 pack", "also viewed"} {
			if strings.Contains(doc.Markdown, noise) {
				t.Errorf("%s: the product keeps %q:\n%s", mode, noise, doc.Markdown)
			}
		}
	}
}

// A page that says it sells a product but is a shop's collection: a short
// introduction beside a grid of links to its items. Readability's pick,
// the introduction, holds little of the page's structure but nearly all
// of its text that is not links, so the page is read as that article,
// not as its grid.
func TestConvertHTML_AProductPageOfLinksIsReadAsItsProse(t *testing.T) {
	var grid strings.Builder
	for i := range 40 {
		fmt.Fprintf(&grid, `<li><a href="/p/%d">Trail runner shoe model %d in three colours</a></li>`, i, i)
	}
	page := `<html><head><title>Trail shoes | Run Store</title>
	<meta property="og:type" content="product"></head><body>
	<header><nav><a href="/">Home</a> <a href="/shoes">Shoes</a></nav></header>
	<main><div class="intro"><h1>Trail shoes</h1>
	<p>Trail shoes grip loose ground with deep lugs, guard your toes from rocks with a bumper and drain quickly after a stream crossing, so your feet stay comfortable for hours.</p>
	<p>Not sure which pair suits you? Our fitters watch you run, measure both feet and let you try each shoe on the store's own small hill before you choose.</p></div>
	<ul class="grid">` + grid.String() + `</ul></main>
	<footer><p>Run Store</p></footer></body></html>`
	doc := markdown.ConvertHTML([]byte(page), "https://run.example/trail-shoes")
	if !strings.Contains(doc.Markdown, "deep lugs") {
		t.Errorf("the page lacks its introduction:\n%s", doc.Markdown)
	}
	if doc.Mode != markdown.ModeArticle || strings.Contains(doc.Markdown, "model 17") {
		t.Errorf("the page is read as its grid of links (%s):\n%s", doc.Mode, doc.Markdown)
	}
}
