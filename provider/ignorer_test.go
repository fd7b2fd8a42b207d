package provider_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/webgate-dev/webgate/provider"
)

type topicless struct{}

func (topicless) Search(context.Context, provider.Query) (*provider.Results, error) {
	return &provider.Results{}, nil
}

func (topicless) Ignores(q provider.Query) []string {
	if q.Topic.Specific() {
		return []string{provider.FilterTopic}
	}
	return nil
}

type plain struct{}

func (plain) Search(context.Context, provider.Query) (*provider.Results, error) {
	return &provider.Results{}, nil
}

func TestIgnoresOf_AsksBackendsThatSayAndNoOneElse(t *testing.T) {
	q := provider.Query{Text: "q", Topic: provider.TopicNews}
	if got := provider.IgnoresOf(topicless{}, q); !reflect.DeepEqual(got, []string{"topic"}) {
		t.Errorf("IgnoresOf(topicless) = %v", got)
	}
	if got := provider.IgnoresOf(plain{}, q); got != nil {
		t.Errorf("IgnoresOf(plain) = %v, want nil", got)
	}
	if got := provider.IgnoredBy("jina", nil); got != nil {
		t.Errorf("IgnoredBy with nothing ignored = %v, want nil", got)
	}
	if got := provider.IgnoredBy("jina", []string{"time_range"}); !reflect.DeepEqual(got, map[string][]string{"jina": {"time_range"}}) {
		t.Errorf("IgnoredBy = %v", got)
	}
}

func TestTopic_OnlyNewsAndFinanceAreSpecific(t *testing.T) {
	for topic, want := range map[provider.Topic]bool{
		provider.AnyTopic: false, provider.TopicGeneral: false, provider.TopicNews: true, provider.TopicFinance: true,
	} {
		if got := topic.Specific(); got != want {
			t.Errorf("%q.Specific() = %v, want %v", topic, got, want)
		}
	}
}
