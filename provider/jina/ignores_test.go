package jina_test

import (
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/jina"
)

// The package documentation: Jina Search honours the country and the
// language; it ignores the time range and the news and finance topics.
func TestIgnores_NamesWhatThePackageDocumentationSaysIsNotHonoured(t *testing.T) {
	c, err := jina.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    provider.Query
		want []string
	}{
		{"nothing set", provider.Query{Text: "q"}, nil},
		{"honoured filters", provider.Query{Text: "q", Country: "de", Language: "de", Topic: provider.TopicGeneral}, nil},
		{"time range and topic", provider.Query{Text: "q", TimeRange: provider.PastWeek, Topic: provider.TopicFinance}, []string{"time_range", "topic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Ignores(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ignores = %v, want %v", got, tc.want)
			}
		})
	}
}
