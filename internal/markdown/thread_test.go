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
