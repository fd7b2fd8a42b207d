package webpage

import (
	"context"
	"strings"
	"testing"

	"github.com/webgate-dev/webgate/provider"
)

func TestReader_SaysWhyAServerErrorPageGoesToAnExtractionProvider(t *testing.T) {
	for _, status := range []int{500, 503, 599} {
		x := &fakeExtractor{name: "exa", page: &provider.Page{Content: "page text"}}
		u := serve(t, status, "text/html", "<html><body><h1>Service Unavailable</h1></body></html>")
		res, err := loopbackReader(x).Read(context.Background(), Request{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		why := res.Plan.Why
		if res.Source != SourceProvider || !strings.HasPrefix(why, "answered a direct read with HTTP ") || !strings.Contains(why, "server error an extraction provider may get past") || strings.Contains(why, "refused") {
			t.Errorf("HTTP %d: why %q, source %s", status, why, res.Source)
		}
		if res.Plan.Verdict != nil {
			t.Errorf("HTTP %d: the error page was classified as the page (%s)", status, res.Plan.Verdict.Class)
		}
	}
	x := &fakeExtractor{name: "exa", page: &provider.Page{Content: "page text"}}
	res, err := loopbackReader(x).Read(context.Background(), Request{URL: serve(t, 503, "text/html", "<html></html>")})
	if err != nil || res.Plan.Why != "answered a direct read with HTTP 503 Service Unavailable, a server error an extraction provider may get past" {
		t.Errorf("why %q (%v)", res.Plan.Why, err)
	}
}
