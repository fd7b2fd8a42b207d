package markdown_test

import (
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
