package classify

import (
	"bytes"
	"testing"
)

func FuzzClassify(f *testing.F) {
	f.Add([]byte(`<html><body><div id="root"></div><script src="/main.js"></script></body></html>`))
	f.Add([]byte(`<p>` + "a b c d e f g h i j k l m n o p q r s t u v w x y z" + `</p>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := ClassifyBytes(b)
		switch r.Class {
		case FetchReadable, TemplateHeavy, BrowserRenderRequired:
		default:
			t.Fatalf("unknown class %q", r.Class)
		}
		if !(r.Confidence >= 0 && r.Confidence <= 1) {
			t.Fatalf("confidence %v out of [0,1]", r.Confidence)
		}
		if len(r.Signals) == 0 {
			t.Fatal("no signals")
		}
		r2, err := Classify(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if r2.Class != r.Class || r2.Confidence != r.Confidence {
			t.Fatalf("reader and bytes disagree: %v vs %v", r2, r)
		}
	})
}
