package websearchapi_test

import (
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
	"github.com/webgate-dev/webgate/provider/websearchapi"
)

// The package documentation: WebSearchAPI.ai honours every query field
// but the topic.
func TestIgnores_NamesWhatThePackageDocumentationSaysIsNotHonoured(t *testing.T) {
	c, err := websearchapi.New(provider.NewPool([]string{"key"}, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    provider.Query
		want []string
	}{
		{"nothing set", provider.Query{Text: "q"}, nil},
		{"honoured filters", provider.Query{Text: "q", TimeRange: provider.PastYear, Country: "us", Language: "en", Topic: provider.TopicGeneral}, nil},
		{"news topic", provider.Query{Text: "q", Topic: provider.TopicNews}, []string{"topic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Ignores(tc.q); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ignores = %v, want %v", got, tc.want)
			}
		})
	}
}
