package brave_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/brave"
)

// The package documentation: Brave honours the time range and the
// countries and languages it lists; it ignores others, and the news and
// finance topics (only the web vertical is read).
func TestIgnores_NamesWhatThePackageDocumentationSaysIsNotHonoured(t *testing.T) {
	c, err := brave.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    provider.Query
		want []string
	}{
		{"nothing set", provider.Query{Text: "q"}, nil},
		{"honoured filters", provider.Query{Text: "q", TimeRange: provider.PastMonth, Country: "de", Language: "ja", Topic: provider.TopicGeneral}, nil},
		{"unlisted country and language", provider.Query{Text: "q", Country: "xx", Language: "qq"}, []string{"country", "language"}},
		{"news topic", provider.Query{Text: "q", Topic: provider.TopicNews}, []string{"topic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Ignores(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ignores = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSearch_ReportsTheFiltersItIgnored(t *testing.T) {
	f := newFake(t, fixture(t, "search_ok.json"))
	res, err := newClient(t, f, nil).Search(context.Background(), provider.Query{Text: "q", Country: "xx", Topic: provider.TopicFinance})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"brave": {"country", "topic"}}; !reflect.DeepEqual(res.Ignored, want) {
		t.Errorf("Ignored = %v, want %v", res.Ignored, want)
	}
	if v := f.only(t); v.Get("country") != "" || v.Get("result_filter") != "web" {
		t.Errorf("query = %v", v)
	}
}
