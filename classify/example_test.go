package classify_test

import (
	"fmt"
	"strings"

	"github.com/webgate-dev/webgate/classify"
)

func Example() {
	page := `<!doctype html>
<html><head><title>Expense tracker</title></head>
<body>
  <noscript>You need to enable JavaScript to run this app.</noscript>
  <div id="root"></div>
  <script src="/static/js/main.3f2a1c.js"></script>
</body></html>`

	res, err := classify.Classify(strings.NewReader(page))
	if err != nil {
		fmt.Println("read error:", err)
		return
	}
	fmt.Println(res.Title)
	fmt.Println(res.Class, res.Confidence >= 0.9)
	for _, s := range res.Signals {
		if s.Name == "empty_mounts" || s.Name == "js_notice" {
			fmt.Println(s)
		}
	}
	// Output:
	// Expense tracker
	// browser-render-required true
	// empty_mounts=div#root
	// js_notice="You need to enable JavaScript to run this app."
}

func ExampleClassifier_ClassifyBytes() {
	c := classify.New(&classify.Options{MaxBytes: 1 << 20})
	res := c.ClassifyBytes([]byte(`<ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul>`))
	fmt.Println(res.Class)
	// Output:
	// template-heavy
}
