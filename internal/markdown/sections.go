package markdown

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// A reference page (a manual page, an API's documentation) is often cut
// into sibling sections, each a block of one kind that starts with its
// heading: AsciiDoc's sect1 blocks, Sphinx's and MkDocs' <section>
// elements. Readability scores each alone and keeps the longest (a
// command's options without its synopsis and description); the sections
// around it are read with it.

// Bounds on a group of sections.
const (
	// minSections is how many sibling sections of one kind a group has.
	minSections = 3
	// maxSectionGroups is how many groups are kept to check against
	// readability's pick.
	maxSectionGroups = 6
)

// sectionGroup is a copy of an element whose children include a group
// of sections, and its text.
type sectionGroup struct {
	region *html.Node
	// chars and links count its text and the text of its links.
	chars, links int
	// text is its text without whitespace.
	text string
}

// findSectionGroups returns, from a cleaned body, copies of the elements
// that hold at least [minSections] children of one element type and
// class, each starting with a heading ([sectioned]), and whose text is
// mostly not links (not a footer's columns of links): at most
// [maxSectionGroups], the smallest first.
func findSectionGroups(body *html.Node) []sectionGroup {
	var found []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n != body && sectioned(n) {
			found = append(found, n)
		}
		return n.Type == html.ElementNode || n.Type == html.DocumentNode
	})
	type measured struct {
		n            *html.Node
		chars, links int
	}
	var ms []measured
	for _, n := range found {
		links := linkLength(n)
		if chars := textLength(n); 4*links <= chars {
			ms = append(ms, measured{n, chars, links})
		}
	}
	slices.SortStableFunc(ms, func(a, b measured) int { return a.chars - b.chars })
	var out []sectionGroup
	for _, m := range ms[:min(len(ms), maxSectionGroups)] {
		out = append(out, sectionGroup{region: cloneNode(m.n), chars: m.chars, links: m.links, text: squeeze(textOf(m.n))})
	}
	return out
}

// sectioned reports whether n has at least [minSections] element
// children of one type and class (a <div> needs a class) that each start
// with a heading.
func sectioned(n *html.Node) bool {
	var keys []string
	var counts []int
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || headingRank(c) > 0 {
			continue
		}
		class := attr(c, "class")
		if c.Data == "div" && class == "" {
			continue
		}
		if sectionRank(c) == 0 {
			continue
		}
		key := c.Data + "." + class
		found := false
		for i, k := range keys {
			if k == key {
				counts[i]++
				found = true
				if counts[i] >= minSections {
					return true
				}
			}
		}
		if !found {
			keys = append(keys, key)
			counts = append(counts, 1)
		}
	}
	return false
}

// widerSections returns the smallest group of sections that holds
// readability's pick (its text sampled at each quarter) and half as much
// text again, little of it links; nil when none does.
func widerSections(groups []sectionGroup, article *html.Node, articleChars int) *html.Node {
	var samples []string
	for _, g := range groups {
		if 2*g.chars < 3*articleChars || 4*g.links > g.chars {
			continue
		}
		if samples == nil {
			samples = textSamples(article, 4)
			if len(samples) < 3 {
				return nil
			}
		}
		holds := true
		for _, s := range samples {
			if !strings.Contains(g.text, s) {
				holds = false
				break
			}
		}
		if holds {
			return g.region
		}
	}
	return nil
}
