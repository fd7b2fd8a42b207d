package exa_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/exa"
)

// The package documentation: Exa honours the time range, the country and
// the news topic (category news); it ignores the language and the finance
// topic.
func TestIgnores_NamesWhatThePackageDocumentationSaysIsNotHonoured(t *testing.T) {
	c, err := exa.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    provider.Query
		want []string
	}{
		{"nothing set", provider.Query{Text: "q"}, nil},
		{"honoured filters", provider.Query{Text: "q", TimeRange: provider.PastWeek, Country: "de", Topic: provider.TopicNews}, nil},
		{"general topic", provider.Query{Text: "q", Topic: provider.TopicGeneral}, nil},
		{"language and finance", provider.Query{Text: "q", Language: "de", Topic: provider.TopicFinance}, []string{"language", "topic"}},
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
		name     string
		cfg      *exa.Config
		topic    provider.Topic
		category any
		ignored  map[string][]string
	}{
		{"news replaces the configured category", &exa.Config{Category: "company"}, provider.TopicNews, "news", nil},
		{"general keeps the configured category", &exa.Config{Category: "pdf"}, provider.TopicGeneral, "pdf", nil},
		{"finance sends no category", nil, provider.TopicFinance, nil, map[string][]string{"exa": {"topic"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake(t, ok(fixture(t, "search.json")))
			res, err := newClient(t, srv, tc.cfg).Search(context.Background(), provider.Query{Text: "q", Topic: tc.topic})
			if err != nil {
				t.Fatal(err)
			}
			if got := sent(t, srv)["category"]; got != tc.category {
				t.Errorf("category = %v, want %v", got, tc.category)
			}
			if !reflect.DeepEqual(res.Ignored, tc.ignored) {
				t.Errorf("Ignored = %v, want %v", res.Ignored, tc.ignored)
			}
		})
	}
}
