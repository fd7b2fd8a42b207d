// Package markdown converts a page's HTML into readable Markdown
// ([ConvertHTML]): the main content with its headings, paragraphs, lists,
// links, code, quotes and tables, without scripts, styles, navigation,
// footers and forms. The web fetch hook and the fetch tool (package
// webtools) use it for pages that are readable as served.
package markdown
