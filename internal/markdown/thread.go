package markdown

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A discussion thread (a forum topic, a question and its answers, a
// comment page) repeats one kind of element, a post, once per message.
// Readability keeps the post it scores best, the first one, and drops the
// others, whose classes say "comment" or "reply". The article conversion
// looks for the thread before readability runs and reads the whole of it
// when readability's pick is one of its posts.

// postWords are the words a post's class or microdata type holds ("msg":
// a message board's table of messages).
var postWords = []string{"post", "comment", "message", "msg", "reply", "answer", "question", "entry"}

// postChrome are the words of classes that name a part of a post (its
// date, its author box, its buttons) or a link to one, not a post.
var postChrome = []string{"count", "link", "button", "btn", "form", "action", "meta", "date", "time", "author",
	"user", "avatar", "vote", "share", "footer", "header", "info", "tool", "icon", "new", "add", "nav", "title",
	"preview", "edit", "sig", "badge", "menu", "number", "reaction", "like", "quote", "attach", "image", "thumb",
	"widget", "sidebar", "related", "recent", "popular", "list", "filter", "search", "type", "status", "score"}

// Bounds on what counts as a thread.
const (
	// minPosts is how many posts with text a thread has.
	minPosts = 2
	// minPostChars is how much text a post holds to count.
	minPostChars = 20
	// maxThreadCandidates is how many groups of posts are kept, the
	// largest first, to check against readability's pick.
	maxThreadCandidates = 2
)

// threadCandidate is a group of posts and the element around them.
type threadCandidate struct {
	// region is an element holding a copy of every post.
	region *html.Node
	// posts is how many posts the group holds.
	posts int
	// chars is the text of the region.
	chars int
	// text is the posts' text as the page has it (their chrome not yet
	// dropped), without whitespace.
	text string
}

// findThreads finds, in a cleaned body, the groups of elements marked as
// posts in the same way (one element type, one post-like class word or
// microdata type), at least [minPosts] of them with text, whose posts
// hold most of the text of the smallest element around them. It returns
// copies of those elements, the group with the most text first.
//
// With titled (a page that declares itself an article), a group is a
// thread only when its posts after the first are replies ([replies]), not
// the next stories of a blog or a news site loaded below the one asked
// for.
func findThreads(body *html.Node, titled bool) []threadCandidate {
	// The groups in the order the page first shows them, so that the
	// choice between groups of equal text does not change between runs.
	groups := map[string][]*html.Node{}
	var order []string
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		for _, key := range postKeys(n) {
			if groups[key] == nil {
				order = append(order, key)
			}
			groups[key] = append(groups[key], n)
		}
		return true
	})
	type scored struct {
		lca          *html.Node
		members      []*html.Node
		key          string
		posts, chars int
		postChars    int
	}
	var best []scored
	lcaChars := map[*html.Node]int{}
	for _, key := range order {
		members := groups[key]
		if len(members) < minPosts {
			continue
		}
		outer := outermost(members)
		posts, postChars := 0, 0
		for _, m := range outer {
			if n := textLength(m); n >= minPostChars {
				posts++
				postChars += n
			}
		}
		if posts < minPosts || titled && !replies(outer) {
			continue
		}
		lca := commonAncestor(outer)
		if lca == nil || lca == body {
			continue
		}
		chars, ok := lcaChars[lca]
		if !ok {
			chars = textLength(lca)
			lcaChars[lca] = chars
		}
		if 2*postChars < chars {
			continue
		}
		dup := false
		for i := range best {
			if best[i].lca == lca {
				dup = true
				if postChars > best[i].postChars {
					best[i] = scored{lca, outer, key, posts, chars, postChars}
				}
			}
		}
		if !dup {
			best = append(best, scored{lca, outer, key, posts, chars, postChars})
		}
	}
	// Largest first; few groups, so a simple sort.
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && best[j].postChars > best[j-1].postChars; j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	var out []threadCandidate
	for _, b := range best[:min(len(best), maxThreadCandidates)] {
		region := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		var text strings.Builder
		for _, m := range b.members {
			text.WriteString(squeeze(textOf(m)))
			post := cloneNode(m)
			dropPostChrome(post, strings.Contains(b.key, "comment") || strings.Contains(strings.ToLower(attr(m, "class")), "comment"))
			region.AppendChild(post)
		}
		out = append(out, threadCandidate{region: region, posts: b.posts, chars: b.postChars, text: text.String()})
	}
	return out
}

// postChromeWords are the words of the classes of a post's parts that
// are not its message: its buttons, votes, reactions and share links, its
// author's badges, avatar and signature, its tags, the notes that it was
// edited (phpBB's notice, FluxBB's postedit, MyBB's, vBulletin's).
var postChromeWords = []string{"signature", "reaction", "vote", "voting", "share", "action", "control", "toolbar",
	"tools", "button", "btn", "badge", "avatar", "usertitle", "user-title", "userextra", "user-extra", "userstats",
	"user-stats", "menu", "taglist", "like", "postprofile", "profile-icons", "back2top", "expandlink", "cauthorpane_mobile", "cauthorpane_info", "post-count", "postcount", "join-date", "joindate",
	"lastedit", "editedby", "edited-by", "notice", "postedit", "post_edit", "edited_post"}

// dropPostChrome removes from a post the parts that are not its message
// ([postChromeWords]) and, unless the posts are comments themselves, the
// comments under it (a question's and its answers' comments): an element
// whose class says comment and that holds less than half of the post's
// text (more is the post's own message, in a forum that calls its posts
// comments).
func dropPostChrome(post *html.Node, comments bool) {
	whole := textLength(post)
	var drop []*html.Node
	walk(post, func(n *html.Node) bool {
		if n == post || n.Type != html.ElementNode {
			return true
		}
		if n.DataAtom == atom.A && permalink(n) {
			drop = append(drop, n)
			return false
		}
		if n.DataAtom == atom.Dl {
			if fields := profileFields(n); fields != nil {
				drop = append(drop, fields...)
				return false
			}
		}
		if attr(n, "component") == "post/editor" {
			drop = append(drop, n)
			return false
		}
		class := strings.ToLower(attr(n, "class"))
		if class == "" {
			return true
		}
		if containsAny(class, postChromeWords) || !comments && strings.Contains(class, "comment") && 2*textLength(n) < whole {
			drop = append(drop, n)
			return false
		}
		return true
	})
	for _, n := range drop {
		n.Parent.RemoveChild(n)
	}
}

// profileFields returns the fields of a post's author box written as a
// definition list (phpBB's, FluxBB's): the author's name as its one term,
// then at least two short details (rank, post count, date joined, place),
// which are returned. It returns nil for any other list.
func profileFields(dl *html.Node) []*html.Node {
	var terms int
	var fields []*html.Node
	for c := dl.FirstChild; c != nil; c = c.NextSibling {
		switch c.DataAtom {
		case atom.Dt:
			terms++
		case atom.Dd:
			if textLength(c) > maxProfileField {
				return nil
			}
			fields = append(fields, c)
		}
	}
	if terms != 1 || len(fields) < 2 {
		return nil
	}
	return fields
}

// maxProfileField is how much text a detail of an author box holds at
// most ([profileFields]).
const maxProfileField = 60

// permalink reports whether a link in a post is the post's number ("#12"),
// a link to the post itself that says nothing of its message.
func permalink(a *html.Node) bool {
	t := strings.TrimSpace(textOf(a))
	if len(t) < 2 || len(t) > 8 || t[0] != '#' {
		return false
	}
	for i := 1; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// postKeys returns the keys under which an element counts as a post: its
// type with each post-like word of its classes, and its microdata type
// when that is a post's.
func postKeys(n *html.Node) []string {
	var keys []string
	if t := attr(n, "itemtype"); t != "" {
		i := strings.LastIndexByte(t, '/')
		switch t[i+1:] {
		case "Comment", "Answer", "Question", "DiscussionForumPosting", "SocialMediaPosting":
			keys = append(keys, "itemtype:"+t[i+1:])
		}
	}
	class := attr(n, "class")
	if class == "" || !hasPostWord(class) {
		return keys
	}
	for _, tok := range strings.Fields(class) {
		if len(tok) > 40 {
			continue
		}
		low := strings.ToLower(tok)
		if !containsAny(low, postWords) || containsAny(low, postChrome) {
			continue
		}
		keys = append(keys, n.Data+"."+low)
	}
	return keys
}

// hasPostWord reports whether a class attribute holds one of [postWords]
// in any case: the quick test, without allocating, that most elements
// fail.
func hasPostWord(class string) bool {
	var buf [256]byte
	if len(class) > len(buf) {
		return true
	}
	b := buf[:len(class)]
	for i := 0; i < len(class); i++ {
		c := class[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	for _, w := range postWords {
		if bytes.Contains(b, []byte(w)) {
			return true
		}
	}
	return false
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// outermost returns the members (in document order) that no other member
// holds: a reply nested in a post is read with it.
func outermost(members []*html.Node) []*html.Node {
	in := make(map[*html.Node]bool, len(members))
	for _, m := range members {
		in[m] = true
	}
	out := members[:0:0]
	for _, m := range members {
		nested := false
		for p := m.Parent; p != nil; p = p.Parent {
			if in[p] {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, m)
		}
	}
	return out
}

// commonAncestor returns the smallest element holding every node of ns.
func commonAncestor(ns []*html.Node) *html.Node {
	if len(ns) == 0 {
		return nil
	}
	// The ancestors of the first node, by distance from it.
	up := map[*html.Node]int{}
	var chain []*html.Node
	for p := ns[0].Parent; p != nil; p = p.Parent {
		up[p] = len(chain)
		chain = append(chain, p)
	}
	if len(chain) == 0 {
		return nil
	}
	highest := 0
	for _, n := range ns[1:] {
		p := n.Parent
		for p != nil {
			if i, ok := up[p]; ok {
				highest = max(highest, i)
				break
			}
			p = p.Parent
		}
		if p == nil {
			return nil
		}
	}
	return chain[highest]
}

// threadHolds reports whether a thread's posts hold the article
// readability picked and at least as much text: the posts bring their
// authors, and the replies readability dropped. The article's text is
// sampled at a third and at two thirds ([textSamples]).
//
// On a page that declares a discussion (discussion), readability's pick
// may also hold the board's chrome around the posts (a guest notice, the
// breadcrumbs above and below the thread): the posts need hold three
// quarters of it only.
func threadHolds(t threadCandidate, article *html.Node, articleChars int, discussion bool) bool {
	// The two counts differ a little (the article's is of its Markdown):
	// nine tenths is as much.
	if discussion && 4*t.chars < 3*articleChars || !discussion && 10*t.chars < 9*articleChars {
		return false
	}
	samples := textSamples(article, 3)
	if len(samples) < 2 {
		return false
	}
	for _, s := range samples {
		if !strings.Contains(t.text, s) {
			return false
		}
	}
	return true
}

// threadFollows reports whether a thread holds none of the article
// readability picked: on a page that declares a discussion, its replies
// when readability picked the first post, which the page marks apart
// from them. The article is sampled at each sixth of its text.
func threadFollows(t threadCandidate, article *html.Node) bool {
	samples := textSamples(article, 6)
	if len(samples) == 0 {
		return false
	}
	for _, s := range samples {
		if strings.Contains(t.text, s) {
			return false
		}
	}
	return true
}

// textSamples returns samples of the text of n, whitespace left out, at
// each parts-th of it (a third and two thirds for 3), each taken from
// one text node (the one there, or the next long enough) and at most
// [sampleRunes] long. A sample is not taken across nodes: readability
// drops parts of a post (an author panel, an aside), and a sample across
// the gap would join text the posts keep apart. None is returned when n
// holds less than twice [sampleRunes].
func textSamples(n *html.Node, parts int) []string {
	var texts []string
	total := 0
	walk(n, func(x *html.Node) bool {
		if x.Type == html.TextNode {
			if s := squeeze(x.Data); s != "" {
				texts = append(texts, s)
				total += len(s)
			}
		}
		return true
	})
	if total < 2*sampleRunes {
		return nil
	}
	var out []string
	for k := 1; k < parts; k++ {
		at := k * total / parts
		pos := 0
		for _, s := range texts {
			pos += len(s)
			if pos <= at || utf8.RuneCountInString(s) < minSampleRunes {
				continue
			}
			if r := []rune(s); len(r) > sampleRunes {
				s = string(r[:sampleRunes])
			}
			out = append(out, s)
			break
		}
	}
	return out
}

// articleNotThread reports whether a page declares itself an article and
// not a discussion (schema.org DiscussionForumPosting or QAPage, in
// JSON-LD or microdata): its repeated post-like elements are then read as
// a thread only when they are not titled ([findThreads]), since a blog's
// and a news site's next stories repeat too. On the extraction
// benchmark's development split, 74 of 113 forum pages declare a
// discussion and no page of another type does; 12 forum pages and 600 of
// 793 articles declare an article.
func articleNotThread(page []byte) bool {
	if declaresDiscussion(page) {
		return false
	}
	return declaresArticle(page)
}

// declaresDiscussion reports whether a page declares a discussion:
// schema.org DiscussionForumPosting or QAPage, in JSON-LD or microdata.
func declaresDiscussion(page []byte) bool {
	return bytes.Contains(page, []byte("DiscussionForumPosting")) || bytes.Contains(page, []byte("QAPage"))
}

// replies reports whether the posts after the first read as its replies:
// together they hold at least as much text as the first, and most of them
// hold no heading of the first three levels (a story's title).
func replies(posts []*html.Node) bool {
	rest, headed := 0, 0
	for _, x := range posts[1:] {
		rest += textLength(x)
		if find(x, atom.H1) != nil || find(x, atom.H2) != nil || find(x, atom.H3) != nil {
			headed++
		}
	}
	return rest >= textLength(posts[0]) && headed*2 <= len(posts)-1
}

// squeeze returns s without its whitespace.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// declaresArticle reports whether a page's og:type is article, or its
// JSON-LD names an article type.
func declaresArticle(page []byte) bool {
	if typeMentions(page, "Article", articleTypes, 1) > 0 || typeMentions(page, "BlogPosting", nil, 1) > 0 || typeMentions(page, "Report", nil, 1) > 0 {
		return true
	}
	for i := 0; ; {
		j := bytes.Index(page[i:], []byte("og:type"))
		if j < 0 {
			return false
		}
		i += j + len("og:type")
		// The <meta> element around it: its content says article.
		start := bytes.LastIndexByte(page[:i], '<')
		end := bytes.IndexByte(page[i:], '>')
		if start >= 0 && end >= 0 && bytes.Contains(bytes.ToLower(page[start:i+end]), []byte(`content="article"`)) {
			return true
		}
	}
}

// typeMentions counts, up to limit, the mentions of a schema.org type in
// a page: the name quoted ("Product") or ending a schema.org URL
// (schema.org/Product"), and the types of kin whose names end with it
// ("NewsArticle", "TechArticle"). The search starts at the name, not at
// the quote, which begins too many strings of a page to be searched for
// quickly.
func typeMentions(page []byte, name string, kin map[string]bool, limit int) int {
	pat := []byte(name + `"`)
	n := 0
	for i := 0; n < limit; {
		j := bytes.Index(page[i:], pat)
		if j < 0 {
			break
		}
		at := i + j
		i = at + len(pat)
		k := at
		for kin != nil && k > 0 && (page[k-1] >= 'A' && page[k-1] <= 'Z' || page[k-1] >= 'a' && page[k-1] <= 'z') {
			k--
		}
		if k < at && !kin[string(page[k:at])] {
			continue
		}
		if k > 0 && (page[k-1] == '"' || page[k-1] == '/') {
			n++
		}
	}
	return n
}

// articleTypes are the prefixes of the schema.org article types whose
// names end with "Article".
var articleTypes = map[string]bool{"News": true, "Tech": true, "Scholarly": true, "OpinionNews": true,
	"AnalysisNews": true, "ReportageNews": true, "BackgroundNews": true, "ReviewNews": true, "AskPublicNews": true, "Satirical": true}

// sampleRunes is how long a sample of the article [threadHolds] looks
// for in the posts.
const sampleRunes = 40

// minSampleRunes is how long a text node must be for [threadHolds] to
// take its sample there.
const minSampleRunes = 20
