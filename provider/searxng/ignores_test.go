package searxng_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/searxng"
)

// The package documentation: SearXNG honours the time range, the language
// (with the country as its region) and the news topic (category news); it
// ignores a country without a language and the finance topic.
func TestIgnores_NamesWhatThePackageDocumentationSaysIsNotHonoured(t *testing.T) {
	c, err := searxng.New(nil, &searxng.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    provider.Query
		want []string
	}{
		{"nothing set", provider.Query{Text: "q"}, nil},
		{"honoured filters", provider.Query{Text: "q", TimeRange: provider.PastYear, Language: "en", Country: "gb", Topic: provider.TopicNews}, nil},
		{"country alone", provider.Query{Text: "q", Country: "de"}, []string{"country"}},
		{"country with the language auto", provider.Query{Text: "q", Country: "de", Language: "auto"}, []string{"country"}},
		{"finance", provider.Query{Text: "q", Topic: provider.TopicFinance}, []string{"topic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Ignores(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ignores = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSearch_NewsTopicSendsTheNewsCategory(t *testing.T) {
	for _, tc := range []struct {
		topic   provider.Topic
		want    string
		ignored map[string][]string
	}{
		{provider.TopicNews, "news", nil},
		{provider.TopicGeneral, "it,science", nil},
		{provider.TopicFinance, "it,science", map[string][]string{"searxng": {"topic"}}},
	} {
		t.Run(string(tc.topic), func(t *testing.T) {
			srv, c := start(t, searxng.Config{Categories: []string{"it", "science"}}, fixture(t, "search_ok.json"))
			res, err := c.Search(context.Background(), provider.Query{Text: "q", Topic: tc.topic})
			if err != nil {
				t.Fatal(err)
			}
			if got := query(t, srv.Last()).Get("categories"); got != tc.want {
				t.Errorf("categories = %q, want %q", got, tc.want)
			}
			if !reflect.DeepEqual(res.Ignored, tc.ignored) {
				t.Errorf("Ignored = %v, want %v", res.Ignored, tc.ignored)
			}
		})
	}
}
