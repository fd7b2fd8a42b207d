package classify

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// The readable-or-listing decision is a logistic model over measurements of
// the page's body and of what surrounds it. Its weights are fitted (see
// model_test.go) on the development pages of the labelled corpora, and
// checked on pages kept aside; readableInputs says what each input is.

// readableInput is one input of the model: a name for the signals, and how
// it is computed from the measurements.
type readableInput struct {
	name string
	of   func(d *decision) float64
}

// readableInputs are the model's inputs. Counts enter as log(1+n), so that
// a page twice as long moves the score by a step, not by double; shares and
// densities enter as they are.
var readableInputs = []readableInput{
	// Size of the main body.
	{"log_body_words", func(d *decision) float64 { return math.Log1p(d.f.clusterWords) }},
	// Body words over words outside page chrome.
	{"body_share", func(d *decision) float64 { return d.f.clusterWords / d.contentDenom() }},
	// Words of the body's container over words outside page chrome.
	{"container_share", func(d *decision) float64 { return d.f.clusterTotal / d.contentDenom() }},
	// Link words outside page chrome.
	{"content_link_density", func(d *decision) float64 { return d.contentLinkD }},
	// Link words over visible words.
	{"link_density", func(d *decision) float64 { return d.linkDensity }},
	// Linked titles in the body.
	{"log_body_teasers", func(d *decision) float64 { return math.Log1p(float64(d.teasers)) }},
	// Linked titles per long paragraph of the body.
	{"teaser_ratio", func(d *decision) float64 { return d.teaserRatio }},
	// Links on the page.
	{"log_links", func(d *decision) float64 { return math.Log1p(float64(d.f.links)) }},
	// List items on the page.
	{"log_list_items", func(d *decision) float64 { return math.Log1p(float64(d.f.listItems)) }},
	// Short link-dominated blocks per 100 words outside page chrome, over 10.
	{"link_blocks_per_100_words", func(d *decision) float64 {
		return float64(d.f.linkBlocks) / d.contentDenom() * 10
	}},
	// Linked headings outside page chrome.
	{"log_content_linked_headings", func(d *decision) float64 { return math.Log1p(float64(d.f.contentHLinks)) }},
	// Long paragraphs in the body.
	{"log_body_paragraphs", func(d *decision) float64 { return math.Log1p(float64(d.f.clusterParas)) }},
	// Long paragraphs on the page.
	{"log_long_paragraphs", func(d *decision) float64 { return math.Log1p(float64(d.f.longParas)) }},
	// og:type article or JSON-LD Article.
	{"article_metadata", func(d *decision) float64 { return b2f(d.f.articleMeta) }},
	// Words in <p> over visible words.
	{"p_share", func(d *decision) float64 { return d.f.pWords / math.Max(1, d.f.visibleWords) }},
	// Words in long paragraphs over words outside page chrome.
	{"prose_share", func(d *decision) float64 { return d.f.paraWords / d.contentDenom() }},
	// Words outside page chrome.
	{"log_content_words", func(d *decision) float64 { return math.Log1p(d.contentWords) }},
}

// contentDenom is the words outside page chrome, at least one.
func (d *decision) contentDenom() float64 { return math.Max(1, d.contentWords) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// readableInputValues computes the model's raw inputs for d.
func (d *decision) readableInputValues() []float64 {
	x := make([]float64, len(readableInputs))
	for i, in := range readableInputs {
		x[i] = in.of(d)
	}
	return x
}

// readableScore returns the model's log-odds that the page is readable,
// and each input's contribution to it.
func (d *decision) readableScore() (float64, []float64) {
	x := d.readableInputValues()
	contrib := make([]float64, len(x))
	return readableModel.score(x, contrib), contrib
}

// score returns the model's log-odds for the raw inputs x and, when
// contrib is not nil, stores each input's contribution in it.
// Each input is first held within the range the fit saw: the model says
// nothing of values beyond it, and a page far outside (no link at all, a
// container many times the page's content) must not get a score from a
// line drawn past its data.
func (m *logisticModel) score(x, contrib []float64) float64 {
	z := m.bias
	for i, v := range x {
		v = clamp(v, m.lo[i], m.hi[i])
		c := m.weights[i] * (v - m.mean[i]) / m.scale[i]
		if contrib != nil {
			contrib[i] = c
		}
		z += c
	}
	return z
}

// scoreNote describes a score and its largest contributions, for the
// signals.
func scoreNote(z float64, contrib []float64) string {
	order := make([]int, len(contrib))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(math.Abs(contrib[b]), math.Abs(contrib[a]))
	})
	var parts []string
	for _, i := range order[:min(3, len(order))] {
		v := fmtRatio(contrib[i])
		if contrib[i] >= 0 {
			v = "+" + v
		}
		parts = append(parts, readableInputs[i].name+" "+v)
	}
	verdict := "readable"
	if z <= 0 {
		verdict = "not readable"
	}
	return "model log-odds: " + verdict + "; most weight: " + strings.Join(parts, ", ")
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// logisticModel is a fitted logistic model: inputs are held within
// [lo, hi], the range of the pages it was fitted on, then centred by mean
// and divided by scale before the weights apply.
type logisticModel struct {
	bias                 float64
	weights, mean, scale []float64
	lo, hi               []float64
}
