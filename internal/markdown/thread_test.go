package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/internal/markdown"
)

// forumPage is a forum topic: a first post and replies, each with its
// author, its text and its buttons, under the site's chrome.
func forumPage(jsonLD string, titled bool) []byte {
	var b strings.Builder
	b.WriteString(`<html><head><title>Which telescope first? - Stargazers</title>` + jsonLD + `</head><body>
	<header><nav><a href="/">Home</a> <a href="/latest">Latest</a></nav></header>
	<main><h1>Which telescope first?</h1><div class="topic-posts">`)
	texts := []string{
		"I am new to astronomy and would like to buy my first telescope this winter. My budget is modest, the sky here is dark, and I would mostly look at the planets and the moon from the garden. What should I buy first and what should I avoid?",
		"Start with a pair of binoculars and a planisphere: ten by fifty binoculars show the moons of Jupiter and the craters of the moon, and you learn the sky before spending more.",
		"A six inch Dobsonian is the usual answer for a first telescope, easy to set up and with enough aperture for the planets; skip the cheap tripod refractors sold in toy shops.",
		"Join a local club before buying anything; members let you look through their instruments at star parties and you will know which one suits you.",
	}
	for i, t := range texts {
		if i == 1 {
			// Readability drops the replies: their class says so.
			b.WriteString(`<section class="replies">`)
		}
		if titled && i > 0 {
			// The next stories of a blog, each under its title.
			fmt.Fprintf(&b, `<div class="post"><h2><a href="/story/%d">Story %d</a></h2><p>%s</p></div>`, i, i, t)
			continue
		}
		fmt.Fprintf(&b, `<div class="post" id="post-%d"><div class="post-author"><a href="/u/user%d">stargazer%d</a></div>
		<div class="post-body"><p>%s</p></div>
		<div class="post-actions"><span class="like-count">%d likes</span><a href="/share/%d">Share</a> <a href="/reply/%d">Reply</a></div></div>`, i, i, i, t, i+3, i, i)
	}
	b.WriteString(`</section></div></main><footer><p>Stargazers forum, all rights reserved. Terms of service and privacy policy.</p></footer></body></html>`)
	return []byte(b.String())
}

func TestConvertHTML_ReadsEveryPostOfAThread(t *testing.T) {
	doc := markdown.ConvertHTML(forumPage("", false), "https://stargazers.example/t/which-telescope/12")
	for _, want := range []string{"I am new to astronomy", "ten by fifty binoculars", "six inch Dobsonian", "Join a local club", "stargazer0", "stargazer3"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the thread lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"Share", "likes", "Reply", "Latest", "all rights reserved"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the thread keeps %q:\n%s", noise, doc.Markdown)
		}
	}
	if doc.Posts != 4 {
		t.Errorf("Posts = %d, want 4", doc.Posts)
	}
}

func TestConvertHTML_ADeclaredArticleFollowedByStoriesIsNotReadAsAThread(t *testing.T) {
	// A page that declares itself an article, followed by the blog's next
	// stories under their titles, is read as readability reads it.
	ld := `<script type="application/ld+json">{"@type":"BlogPosting","headline":"Which telescope first?"}</script>`
	doc := markdown.ConvertHTML(forumPage(ld, true), "https://stargazers.example/t/which-telescope/12")
	if doc.Posts != 0 {
		t.Errorf("Posts = %d, want 0 for a declared article and its next stories:\n%s", doc.Posts, doc.Markdown)
	}
	// Its replies (untitled, more text than the first post) are a thread.
	if doc := markdown.ConvertHTML(forumPage(ld, false), "https://stargazers.example/t/which-telescope/12"); doc.Posts != 4 {
		t.Errorf("Posts = %d, want 4 for a declared article with replies:\n%s", doc.Posts, doc.Markdown)
	}
	// A page that declares a discussion is read as one, whatever else
	// it declares.
	ld = `<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Which telescope first?","isPartOf":{"@type":"Article"}}</script>`
	if doc := markdown.ConvertHTML(forumPage(ld, true), "https://stargazers.example/t/which-telescope/12"); doc.Posts != 4 {
		t.Errorf("Posts = %d, want 4 for a declared discussion:\n%s", doc.Posts, doc.Markdown)
	}
}

// The chrome of forum engines' posts: a post's number linking to itself,
// phpBB's profile column and its quote and back-to-top buttons,
// XenForo's "Click to expand..." under a quote, Invision's author panel
// (rank, post count, the copy for small screens), an author box written
// as a definition list, post counts and join dates, whose posts' classes
// say comment and whose message may hold less than half of a post.
func TestConvertHTML_DropsTheChromeOfForumEnginesPosts(t *testing.T) {
	texts := []string{
		"Does anyone know what the two round holes under the power supply are for? The manual says nothing about them.",
		"I have heard from one of the moderators that the rear one is for an external connection of the lighting hub.",
		"Mine came with a blanking plate over the bottom one, so I guess it is for a future accessory of some sort.",
	}
	var b strings.Builder
	b.WriteString(`<html><head><title>Two holes in the case - Hardware forum</title></head><body><main><h1>Two holes in the case</h1><div class="topic">`)
	for i, text := range texts {
		fmt.Fprintf(&b, `<article class="cPost ipsComment" id="c%d">
		<div class="cAuthorPane_mobile"><h3>builder%d</h3><span>Posted March %d</span></div>
		<aside class="ipsComment_author cAuthorPane"><h3 class="cAuthorPane_author">builder%d</h3>
		<ul class="cAuthorPane_info"><li>Members</li><li>10.2k posts</li><li>Motherboard: a very long list of the parts of the member's computer, processor, memory, video card and drives</li></ul></aside>
		<div class="ipsComment_content"><div class="ipsComment_meta">Posted March %d <a href="/t/1/#c%d">#%d</a></div>
		<div class="postprofile"><dd>Technical Moderator</dd><dd>Posts: 65703</dd></div>
		<dl class="userbox"><dt>builder%d</dt><dd>Registered: 2012-09-03</dd><dd>From: the garage</dd></dl>
		<div class="MessageCard__user-details"><span class="MessageCard__post-count">14 posts</span> <span class="MessageCard__join-date">Joined 2025</span></div>
		<ul class="profile-icons"><li><a href="/quote/%d">Reply with quote</a></li></ul>
		<div class="ipsType_richText"><blockquote>Earlier words<div class="bbCodeBlock-expandLink"><a>Click to expand...</a></div></blockquote><p>%s</p></div>
		<div class="back2top"><a href="#top">Top</a></div></div></article>`, i, i, i+1, i, i+1, i, i+1, i, i, text)
	}
	b.WriteString(`</div></main></body></html>`)
	doc := markdown.ConvertHTML([]byte(b.String()), "https://hardware.example/t/1")
	for _, want := range append(texts, "builder0", "builder2", "Posted March 3") {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the thread lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"#2", "Members", "10.2k", "Motherboard", "Technical Moderator", "Posts:", "Registered:", "From: the garage", "14 posts", "Joined 2025", "Reply with quote", "Click to expand", "Top"} {
		if strings.Contains(doc.Markdown, noise) {
			t.Errorf("the thread keeps %q:\n%s", noise, doc.Markdown)
		}
	}
	// Readability drops the author panels; the posts hold what it kept.
	if doc.Posts != 3 {
		t.Errorf("Posts = %d, want 3", doc.Posts)
	}
	if n := strings.Count(doc.Markdown, "Posted March 1"); n != 1 {
		t.Errorf("the first post's date is said %d times, want once:\n%s", n, doc.Markdown)
	}
}

// The notes that a post was edited (phpBB's and FluxBB's, MyBB's,
// vBulletin's, NodeBB's) say who changed it when, not what it says: they
// are dropped with the rest of a post's chrome.
func TestConvertHTML_DropsThePostsEditNotes(t *testing.T) {
	texts := []string{
		"Does anyone know what the two round holes under the power supply are for? The manual says nothing about them.",
		"I have heard from one of the moderators that the rear one is for an external connection of the lighting hub.",
		"Mine came with a blanking plate over the bottom one, so I guess it is for a future accessory of some sort.",
		"The blanking plates are sold separately too, in packs of four, if anyone has lost theirs in the move.",
		"Thanks all, that settles it: mine is the lighting hub one and the plate was in the box with the screws.",
	}
	notes := []string{
		`<div class="notice">Last edited by builder0 on Sun Feb 22, 2026 2:08 am, edited 108 times in total.</div>`,
		`<p class="postedit"><em>Last edited by builder1 (2024-08-03 11:02:20)</em></p>`,
		`<span class="post_edit"><span class="edited_post">(This post was last modified: 2019-02-24 by builder2.)</span></span>`,
		`<div class="lastedited">Last edited by builder3; 03-05-2024 at 10:11 PM.</div>`,
		`<span component="post/editor" class="visually-hidden">last edited by builder4</span>`,
	}
	var b strings.Builder
	b.WriteString(`<html><head><title>Two holes in the case - Hardware forum</title></head><body><main><h1>Two holes in the case</h1><div class="topic">`)
	for i, text := range texts {
		fmt.Fprintf(&b, `<div class="post" id="p%d"><h3>builder%d</h3><div class="content"><p>%s</p>%s</div></div>`, i, i, text, notes[i])
	}
	b.WriteString(`</div></main></body></html>`)
	doc := markdown.ConvertHTML([]byte(b.String()), "https://hardware.example/t/1")
	for _, want := range texts {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the thread lacks %q:\n%s", want, doc.Markdown)
		}
	}
	for _, noise := range []string{"edited by", "last modified", "108 times"} {
		if strings.Contains(strings.ToLower(doc.Markdown), noise) {
			t.Errorf("the thread keeps %q:\n%s", noise, doc.Markdown)
		}
	}
}

// A topic whose first post is marked apart from its replies (the replies
// schema.org Comments, the first post the page's DiscussionForumPosting)
// is read with its replies after the first post readability picks.
func TestConvertHTML_ReadsTheRepliesAfterAFirstPostMarkedApart(t *testing.T) {
	first := "We have travelled a lot but never to Japan, and we cannot decide between planning the trip ourselves and taking a tour. We like to walk and want to see Tokyo, Kyoto and Osaka in about two weeks, with a day trip to Hiroshima. " +
		"A tour from one of the big companies mixes the two, with free days and the logistics taken care of, but it feels expensive for what it is. " +
		"Planning it ourselves feels more daunting than planning Europe ever did: the trains, the hotels, the language. We thought fifteen to eighteen days in all. Thanks for any advice."
	replies := []string{
		"We are finalising a three week trip with a small agency that planned a mix of guided and free days for us; it took the worry out of the trains and the hotels.",
		"Plan it yourselves: the trains are easy, the signs are in English and a rail pass covers most of what you describe. Book the hotels near the stations.",
		"Hire a local guide for your first day in Tokyo and another in Kyoto; after that you will know your way around and can do the rest on your own.",
	}
	var b strings.Builder
	b.WriteString(`<html><head><title>First trip to Japan - Travel forum</title></head><body>
	<header><nav><a href="/">Home</a> <a href="/forum">Forum</a></nav></header>
	<div id="body" role="main"><div itemscope itemtype="https://schema.org/DiscussionForumPosting">
	<article class="topic"><h1 itemprop="headline">First trip to Japan</h1>
	<div class="metadata"><span class="author" itemprop="name">traveller</span> <time>07/03/24</time></div>
	<div class="content" itemprop="articleBody"><p>` + first + `</p></div></article>
	<section id="replies">`)
	for i, r := range replies {
		fmt.Fprintf(&b, `<article class="reply" itemprop="comment" itemscope itemtype="https://schema.org/Comment">
		<div class="reply-info"><span class="author" itemprop="name">replier%d</span></div>
		<div class="content" itemprop="text"><p>%s</p></div></article>`, i, r)
	}
	b.WriteString(`</section></div></div><footer><p>All rights reserved.</p></footer></body></html>`)
	doc := markdown.ConvertHTML([]byte(b.String()), "https://travel.example/forum/first-trip-to-japan")
	for _, want := range append([]string{first[:60], "replier0", "replier2"}, replies...) {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the topic lacks %q:\n%s", want, doc.Markdown)
		}
	}
	if n := strings.Count(doc.Markdown, first[:60]); n != 1 {
		t.Errorf("the first post is said %d times, want once:\n%s", n, doc.Markdown)
	}
	if doc.Posts != 4 {
		t.Errorf("Posts = %d, want 4:\n%s", doc.Posts, doc.Markdown)
	}
}

// A comment's body that the forum wraps in a form (to edit it in place:
// a hidden input, no field shown) is the comment's text and is read; a
// form with fields to fill in is not.
func TestConvertHTML_ReadsCommentsWrappedInForms(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Lab-grown follicles : science</title></head><body><div class="content" role="main">
	<div class="thing link"><p class="title">Hair follicles grown in the lab for the first time</p><p class="tagline">submitted by someone</p></div>
	<div class="commentarea">`)
	for i, c := range []string{
		"Might this also be a cure for tinnitus if new cilia could be grown in the inner ear?",
		"Those are very different cells, but something like that could probably work one day.",
		"They have been making this claim for forty years; I will believe it when I see it.",
		"Can we start working on permanent hair removal instead? That market is half scams.",
	} {
		fmt.Fprintf(&b, `<div class="thing comment"><p class="tagline"><a class="author" href="/u/user%d">user%d</a> %d points</p>
		<form action="#" class="usertext"><input type="hidden" name="thing_id" value="t1_%d"><div class="usertext-body"><div class="md"><p>%s</p></div></div></form></div>`, i, i, 10+i, i, c)
	}
	b.WriteString(`</div></div>
	<form action="/login" method="post"><p>Sign in to keep reading the whole discussion.</p><input type="text" name="user"><input type="password" name="passwd"></form>
	</body></html>`)
	doc := markdown.ConvertHTML([]byte(b.String()), "https://forum.example/r/science/comments/1")
	for _, want := range []string{"cure for tinnitus", "very different cells", "forty years", "permanent hair removal"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the thread lacks the comment saying %q:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Sign in to keep reading") {
		t.Errorf("the login form is read:\n%s", doc.Markdown)
	}
}

// boardPage is a message board's topic laid out as a table, one cell a
// message (class "msg"), each with its author, its text and the
// author's signature, under a guest notice and breadcrumbs said above
// and below the thread; the page declares a discussion.
func boardPage() []byte {
	var b strings.Builder
	b.WriteString(`<html><head><title>Which telescope first? - Boards</title>
	<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Which telescope first?"}</script></head><body>
	<div class="board_wrap"><div class="guest">You are browsing the boards as a guest. Sign up or log in to post.</div>
	<ol class="crumbs"><li><a href="/boards">Boards</a></li><li><a href="/boards/astro">Astronomy and stargazing</a></li><li>Which telescope first? Recommendations for a beginner</li></ol>
	<table class="board message"><tbody>`)
	texts := []string{
		"I am new to astronomy and would like to buy my first telescope this winter. My budget is modest, the sky here is dark, and I would mostly look at the planets and the moon from the garden.",
		"Start with binoculars and a planisphere: ten by fifty binoculars show the moons of Jupiter and the craters of the moon, and you learn the sky before spending more.",
		"A six inch Dobsonian is the usual answer for a first telescope, easy to set up and with enough aperture for the planets; skip the cheap tripod refractors.",
		"Join a local club before buying anything; members let you look through their instruments at star parties and you will know which one suits you.",
	}
	for i, t := range texts {
		fmt.Fprintf(&b, `<tr><td class="msg"><div class="msg_infobox"><b>stargazer%d</b> <span class="post_time">2 years ago</span></div>
		<div class="msg_body"><div class="msg_text">%s</div><div class="signature"><div class="sig_text">Clear skies from the garden observatory %d</div></div></div></td></tr>`, i, t, i)
	}
	b.WriteString(`</tbody></table><ol class="crumbs"><li><a href="/boards">Boards</a></li><li><a href="/boards/astro">Astronomy and stargazing</a></li><li>Which telescope first? Recommendations for a beginner</li></ol></div></body></html>`)
	return []byte(b.String())
}

func TestConvertHTML_ReadsAMessageBoardsMessagesWithoutSignatures(t *testing.T) {
	doc := markdown.ConvertHTML(boardPage(), "https://boards.example/astro/12")
	for _, want := range []string{"I am new to astronomy", "binoculars", "six inch Dobsonian", "Join a local club", "stargazer0", "stargazer3"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("the thread lacks %q:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Clear skies") {
		t.Errorf("the thread keeps the authors' signatures:\n%s", doc.Markdown)
	}
	if doc.Posts != 4 {
		t.Errorf("Posts = %d, want 4:\n%s", doc.Posts, doc.Markdown)
	}
}
