package brave

import (
	"slices"
	"strings"
)

// Countries lists the country codes Brave's country parameter accepts,
// apart from "ALL".
var Countries = []string{
	"AR", "AU", "AT", "BE", "BR", "CA", "CL", "DK", "FI", "FR", "DE", "HK", "IN", "ID", "IT", "JP", "KR", "MY", "MX",
	"NL", "NZ", "NO", "CN", "PL", "PT", "PH", "RU", "SA", "ZA", "ES", "SE", "CH", "TW", "TR", "GB", "US",
}

// SearchLangs lists the values Brave's search_lang parameter accepts.
var SearchLangs = []string{
	"ar", "eu", "bn", "bg", "ca", "zh-hans", "zh-hant", "hr", "cs", "da", "nl", "en", "en-gb", "et", "fi", "fr", "gl",
	"de", "gu", "he", "hi", "hu", "is", "it", "jp", "kn", "ko", "lv", "lt", "ms", "ml", "mr", "nb", "pl", "pt-br",
	"pt-pt", "pa", "ro", "ru", "sr", "sk", "sl", "es", "sv", "ta", "te", "th", "tr", "uk", "vi",
}

// CountryCode returns the value of Brave's country parameter for an
// ISO 3166-1 alpha-2 code (any case; "uk" is taken for "gb"), or "" when
// Brave does not list the country.
func CountryCode(code string) string {
	c := strings.ToUpper(strings.TrimSpace(code))
	if c == "UK" {
		c = "GB"
	}
	if slices.Contains(Countries, c) {
		return c
	}
	return ""
}

// SearchLang returns the value of Brave's search_lang parameter for an
// ISO 639-1 code or a BCP 47 tag ("en", "en-GB", "pt_BR", "zh-TW"), or ""
// when Brave does not list the language. Brave's own codes are accepted as
// they are; Japanese is "jp", Norwegian "nb", Chinese "zh-hans" (or
// "zh-hant" for traditional script and the TW, HK and MO regions), and
// Portuguese "pt-br" unless the region is PT.
func SearchLang(tag string) string {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(tag), "_", "-"))
	if t == "" {
		return ""
	}
	if slices.Contains(SearchLangs, t) {
		return t
	}
	primary, rest, _ := strings.Cut(t, "-")
	subtags := strings.Split(rest, "-")
	has := func(vs ...string) bool {
		for _, s := range subtags {
			if slices.Contains(vs, s) {
				return true
			}
		}
		return false
	}
	switch primary {
	case "ja":
		return "jp"
	case "no", "nn", "nb":
		return "nb"
	case "iw":
		return "he"
	case "zh":
		if has("hant", "tw", "hk", "mo") {
			return "zh-hant"
		}
		return "zh-hans"
	case "pt":
		if has("pt") {
			return "pt-pt"
		}
		return "pt-br"
	case "en":
		if has("gb", "uk") {
			return "en-gb"
		}
		return "en"
	}
	if slices.Contains(SearchLangs, primary) {
		return primary
	}
	return ""
}
