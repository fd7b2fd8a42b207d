package exa

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/webgate-dev/webgate/provider/internal/lenient"
	"strings"
)

// This file holds Exa's wire types. Requests are encoded from plain structs
// with omitempty; responses are decoded tolerantly: a leaf field of an
// unexpected type (a number where a string was expected, an object echoed
// where text was expected) decodes to its zero value instead of failing the
// whole response. Only a body that is not a JSON object, or a "results" or
// "statuses" that is not an array, is malformed.

// searchRequest is the body of POST /search.
type searchRequest struct {
	Query              string          `json:"query"`
	Type               string          `json:"type,omitempty"`
	Category           string          `json:"category,omitempty"`
	NumResults         int             `json:"numResults,omitempty"`
	IncludeDomains     []string        `json:"includeDomains,omitempty"`
	ExcludeDomains     []string        `json:"excludeDomains,omitempty"`
	StartPublishedDate string          `json:"startPublishedDate,omitempty"`
	UserLocation       string          `json:"userLocation,omitempty"`
	Contents           contentsOptions `json:"contents"`
}

// contentsRequest is the body of POST /contents: the URLs plus the contents
// options at the top level.
type contentsRequest struct {
	URLs []string `json:"urls"`
	contentsOptions
}

// contentsOptions is Exa's ContentsRequest: what to return for each page.
type contentsOptions struct {
	Text             *textOptions `json:"text,omitempty"`
	Highlights       any          `json:"highlights,omitempty"`
	MaxAgeHours      *int         `json:"maxAgeHours,omitempty"`
	LivecrawlTimeout int          `json:"livecrawlTimeout,omitempty"`
}

type textOptions struct {
	MaxCharacters int `json:"maxCharacters"`
}

// searchResponse is the 200 body of POST /search.
type searchResponse struct {
	RequestID          flexString   `json:"requestId"`
	Results            []wireResult `json:"results"`
	SearchType         flexString   `json:"searchType"`
	ResolvedSearchType flexString   `json:"resolvedSearchType"`
	Output             *wireOutput  `json:"output"`
	CostDollars        *costDollars `json:"costDollars"`
}

// resolvedType returns the search type Exa used: searchType (the OpenAPI
// name) or resolvedSearchType (what the Python SDK reads).
func (r *searchResponse) resolvedType() string {
	if r.SearchType != "" {
		return string(r.SearchType)
	}
	return string(r.ResolvedSearchType)
}

// contentsResponse is the 200 body of POST /contents.
type contentsResponse struct {
	RequestID   flexString   `json:"requestId"`
	Results     []wireResult `json:"results"`
	Statuses    []wireStatus `json:"statuses"`
	CostDollars *costDollars `json:"costDollars"`
}

// wireResult is Exa's ResultWithContent. The nullable fields decode to "" or
// nil.
type wireResult struct {
	ID            flexString  `json:"id"`
	URL           flexString  `json:"url"`
	Title         flexString  `json:"title"`
	PublishedDate flexString  `json:"publishedDate"`
	Author        flexString  `json:"author"`
	Score         *flexFloat  `json:"score"`
	Text          flexString  `json:"text"`
	Highlights    flexStrings `json:"highlights"`
	Summary       flexString  `json:"summary"`
}

// UnmarshalJSON decodes a result, treating anything but an object (null, a
// string) as an empty result.
func (r *wireResult) UnmarshalJSON(data []byte) error {
	*r = wireResult(lenient.Loose[plainResult](data))
	return nil
}

// wireStatus is one entry of the statuses[] array of /contents.
type wireStatus struct {
	ID     flexString  `json:"id"`
	Status flexString  `json:"status"`
	Source flexString  `json:"source"`
	Error  *crawlError `json:"error"`
}

// UnmarshalJSON decodes a status, treating anything but an object as empty.
func (s *wireStatus) UnmarshalJSON(data []byte) error {
	*s = wireStatus(lenient.Loose[plainStatus](data))
	return nil
}

// crawlError is the error of a failed URL in statuses[]. HTTPStatusCode is
// the status the target site answered, when known.
type crawlError struct {
	Tag            flexString `json:"tag"`
	HTTPStatusCode *flexFloat `json:"httpStatusCode"`
}

// UnmarshalJSON decodes a crawl error; a bare string is taken as the tag.
func (e *crawlError) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*e = crawlError{Tag: flexString(s)}
		return nil
	}
	*e = crawlError(lenient.Loose[plainCrawlError](data))
	return nil
}

// wireOutput is the synthesized output of deep searches. Content is a
// string, or an object when an output schema was sent.
type wireOutput struct {
	Content json.RawMessage `json:"content"`
}

// UnmarshalJSON decodes the output, ignoring anything but an object.
func (o *wireOutput) UnmarshalJSON(data []byte) error {
	*o = wireOutput(lenient.Loose[plainOutput](data))
	return nil
}

// text returns the output as text: the string itself, or the compact JSON
// of an object.
func (o *wireOutput) text() string {
	if o == nil || len(o.Content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(o.Content, &s) == nil {
		return s
	}
	if !lenient.IsObject(o.Content) {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, o.Content) != nil {
		return ""
	}
	return b.String()
}

// costDollars accepts both shapes Exa has used: the newer
// {total, search:{…}, contents:{…}} and the older
// {total, breakDown:[…], perRequestPrices:{…}, perPagePrices:{…}}. Only the
// total is read; the rest is kept raw. A costDollars that is not an object
// decodes with reported false.
type costDollars struct {
	Total            flexFloat       `json:"total"`
	Search           json.RawMessage `json:"search"`
	Contents         json.RawMessage `json:"contents"`
	BreakDown        json.RawMessage `json:"breakDown"`
	PerRequestPrices json.RawMessage `json:"perRequestPrices"`
	PerPagePrices    json.RawMessage `json:"perPagePrices"`
	reported         bool
}

// UnmarshalJSON decodes the cost, ignoring anything but an object.
func (c *costDollars) UnmarshalJSON(data []byte) error {
	*c = costDollars(lenient.Loose[plainCost](data))
	c.reported = lenient.IsObject(data)
	return nil
}

// errorEnvelope is Exa's error body: {"requestId","error","tag"}. Error is
// kept raw because some answers carry an object there.
type errorEnvelope struct {
	RequestID flexString      `json:"requestId"`
	Error     json.RawMessage `json:"error"`
	Tag       flexString      `json:"tag"`
}

// message returns the human-readable error message: the string itself, or
// the "message" or "error" member of an object.
func (e *errorEnvelope) message() string {
	if len(e.Error) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return s
	}
	var obj struct {
		Message flexString `json:"message"`
		Error   flexString `json:"error"`
	}
	if lenient.IsObject(e.Error) && json.Unmarshal(e.Error, &obj) == nil {
		if obj.Message != "" {
			return string(obj.Message)
		}
		return string(obj.Error)
	}
	return ""
}

// failed reports whether a 2xx body is in fact an error: it carries a tag,
// a non-empty error string or an error object.
func (e *errorEnvelope) failed() bool {
	if strings.TrimSpace(string(e.Tag)) != "" {
		return true
	}
	raw := bytes.TrimSpace(e.Error)
	switch {
	case len(raw) == 0, bytes.Equal(raw, []byte("null")), bytes.Equal(raw, []byte("false")):
		return false
	case lenient.IsObject(raw):
		return true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s) != ""
	}
	return false
}

// decodeEnvelope reads an error envelope from any body; a body that is not
// a JSON object gives an empty envelope.
func decodeEnvelope(body []byte) errorEnvelope {
	return lenient.Loose[errorEnvelope](body)
}

// Method-less copies of the tolerant types, for lenient.Loose.
type (
	plainResult     wireResult
	plainStatus     wireStatus
	plainCrawlError crawlError
	plainOutput     wireOutput
	plainCost       costDollars
)

var errMalformed = errors.New("malformed response body")

// decodeSearch decodes a /search response body.
func decodeSearch(body []byte) (*searchResponse, error) {
	r, err := lenient.Decode[searchResponse](body)
	if err != nil {
		return nil, errMalformed
	}
	return r, nil
}

// decodeContents decodes a /contents response body.
func decodeContents(body []byte) (*contentsResponse, error) {
	r, err := lenient.Decode[contentsResponse](body)
	if err != nil {
		return nil, errMalformed
	}
	return r, nil
}

// flexString decodes a JSON string; null and values of any other type
// decode to "".
type flexString string

// UnmarshalJSON implements json.Unmarshaler.
func (s *flexString) UnmarshalJSON(data []byte) error {
	var v string
	if json.Unmarshal(data, &v) != nil {
		v = ""
	}
	*s = flexString(v)
	return nil
}

// flexFloat is a number field read leniently ([lenient.Float]).
type flexFloat = lenient.Float

// flexStrings decodes an array of strings, skipping non-string items; a
// single string becomes a one-item list, anything else (true, an object)
// an empty one.
type flexStrings []string

// UnmarshalJSON implements json.Unmarshaler.
func (l *flexStrings) UnmarshalJSON(data []byte) error {
	*l = nil
	var one string
	if json.Unmarshal(data, &one) == nil {
		if one != "" {
			*l = flexStrings{one}
		}
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(data, &items) != nil {
		return nil
	}
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			*l = append(*l, s)
		}
	}
	return nil
}
