package firecrawl_test

import (
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/firecrawl"
)

// The package documentation: Firecrawl honours the time range and the
// country; it ignores the language and the news and finance topics.
func TestIgnores_NamesWhatThePackageDocumentationSaysIsNotHonoured(t *testing.T) {
	c, err := firecrawl.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    provider.Query
		want []string
	}{
		{"nothing set", provider.Query{Text: "q"}, nil},
		{"honoured filters", provider.Query{Text: "q", TimeRange: provider.PastDay, Country: "gb", Topic: provider.TopicGeneral}, nil},
		{"language and topic", provider.Query{Text: "q", Language: "en", Topic: provider.TopicNews}, []string{"language", "topic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Ignores(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ignores = %v, want %v", got, tc.want)
			}
		})
	}
}
