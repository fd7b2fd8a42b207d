package tavily_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/tavily"
)

// The package documentation: Tavily honours the time range and the topic;
// it ignores the language, and a country with the news or finance topic
// or that it does not list.
func TestIgnores_NamesWhatThePackageDocumentationSaysIsNotHonoured(t *testing.T) {
	general, err := tavily.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	news, err := tavily.New(nil, &tavily.Config{Topic: "news"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    *tavily.Client
		q    provider.Query
		want []string
	}{
		{"nothing set", general, provider.Query{Text: "q"}, nil},
		{"honoured filters", general, provider.Query{Text: "q", TimeRange: provider.PastDay, Country: "de", Topic: provider.TopicFinance}, []string{"country"}},
		{"country with the general topic", general, provider.Query{Text: "q", Country: "de", Topic: provider.TopicGeneral}, nil},
		{"country Tavily does not list", general, provider.Query{Text: "q", Country: "xx"}, []string{"country"}},
		{"country with the configured news topic", news, provider.Query{Text: "q", Country: "us"}, []string{"country"}},
		{"the query's topic wins over the configuration", news, provider.Query{Text: "q", Country: "us", Topic: provider.TopicGeneral}, nil},
		{"language", general, provider.Query{Text: "q", Language: "fr", Topic: provider.TopicNews}, []string{"language"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Ignores(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ignores = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSearch_SendsTheQueryTopicAndReportsWhatItIgnored(t *testing.T) {
	srv := fake(t, fixture(t, "search_ok.json"))
	c := newClient(t, srv, tavily.Config{})
	res, err := c.Search(context.Background(), provider.Query{Text: "q", Topic: provider.TopicNews, Country: "us", Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	body := sent(t, srv)
	if body["topic"] != "news" || body["country"] != nil {
		t.Errorf("request = %v, want topic news and no country", body)
	}
	if want := map[string][]string{"tavily": {"country", "language"}}; !reflect.DeepEqual(res.Ignored, want) {
		t.Errorf("Ignored = %v, want %v", res.Ignored, want)
	}
	if _, err := c.Search(context.Background(), provider.Query{Text: "q", Topic: "sports"}); provider.KindOf(err) != provider.KindBadRequest {
		t.Errorf("unknown topic: err %v, want a bad request", err)
	}
	if got := len(srv.Requests()); got != 1 {
		t.Errorf("%d requests, want 1: an unknown topic is refused before any request", got)
	}
}
