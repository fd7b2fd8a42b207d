package redact

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The secrets below are made up: they have the shape of real ones and
// are not credentials for anything. Their literals are split after the
// prefix so that secret scanners do not take this file for a leak.
var truePositives = []struct {
	text   string
	secret string // must be gone from the output
	kind   string
}{
	{"my key is sk-" + "proj-Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3 ok", "sk-" + "proj-Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3", KindOpenAI},
	{"OPENAI=sk-4fT9qL2mX8vB1nR6wK3jH7dG5sT3Blbk" + "FJp0Z9yC4eA2uI8oQ1", "sk-4fT9qL2mX8vB1nR6wK3jH7dG5sT3Blbk" + "FJp0Z9yC4eA2uI8oQ1", KindOpenAI},
	{"DEEPSEEK_KEY is sk-" + "0f3a9c1e5b7d4f6a8c0e2b4d6f8a0c2e", "sk-" + "0f3a9c1e5b7d4f6a8c0e2b4d6f8a0c2e", KindOpenAI},
	{"x-api-key: sk-ant-" + "api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zx6Yw5Vu4Ts3Rq2Po1Nm0Lk9Ji8Hg7Fe6Dc5Ba4Zx3Yw2Vu1Ts0Rq9Po8Nm7-AA", "sk-ant-" + "api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zx6Yw5Vu4Ts3Rq2Po1Nm0Lk9Ji8Hg7Fe6Dc5Ba4Zx3Yw2Vu1Ts0Rq9Po8Nm7-AA", KindAnthropic},
	{"git clone https://gh" + "p_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s0x@github.com/o/r", "gh" + "p_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s0x", KindGitHub},
	{"GITHUB_TOKEN=gh" + "o_16C7e42F292c6912E7710c838347Ae178B4a", "gh" + "o_16C7e42F292c6912E7710c838347Ae178B4a", KindGitHub},
	{"gh" + "s_abcdefghijklmnopqrstuvwxyz0123456789", "gh" + "s_abcdefghijklmnopqrstuvwxyz0123456789", KindGitHub},
	{"token github_" + "pat_11ABCDEFG0aBcDeFgHiJkLm_nOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz012", "github_" + "pat_11ABCDEFG0aBcDeFgHiJkLm_nOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz012", KindGitHub},
	{"gl" + "pat-xZ4cV8bN2mQ6wE9rT1yU", "gl" + "pat-xZ4cV8bN2mQ6wE9rT1yU", KindGitLab},
	{"aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE", "AKIA" + "IOSFODNN7EXAMPLE", KindAWS},
	{"temporary ASIA" + "4XQ7ZP2KL9MN3B8C credentials", "ASIA" + "4XQ7ZP2KL9MN3B8C", KindAWS},
	{"aws_secret_access_key=wJalrXUtn" + "FEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtn" + "FEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", KindGeneric},
	{"https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AI" + "zaSyD3k9Lm2Qx7Rt8Yp1Zs4Wv6Bn0Cd5Ef7Gh", "AI" + "zaSyD3k9Lm2Qx7Rt8Yp1Zs4Wv6Bn0Cd5Ef7Gh", KindGoogleKey},
	{"Authorization: Bearer ya" + "29.a0AfB_byC3k9Lm2Qx7Rt8Yp1Zs4Wv6Bn0Cd5Ef7GhIjKl", "ya" + "29.a0AfB_byC3k9Lm2Qx7Rt8Yp1Zs4Wv6Bn0Cd5Ef7GhIjKl", KindGoogleOAuth},
	{"SLACK_BOT_TOKEN=xo" + "xb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xo" + "xb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", KindSlack},
	{"post to https://hooks.slack" + ".com/services/T0A1B2C3D/B4E5F6G7H/AbCdEfGhIjKlMnOpQrStUvWx", "T0A1B2C3D/B4E5F6G7H/AbCdEfGhIjKlMnOpQrStUvWx", KindSlackWebhook},
	{"stripe.api_key = 'sk_" + "live_51H8xYzAbCdEfGh1234567890IjKlMnOp'", "sk_" + "live_51H8xYzAbCdEfGh1234567890IjKlMnOp", KindStripe},
	{"rk_" + "test_4eC39HqLyjWDarjtT1zdp7dc", "rk_" + "test_4eC39HqLyjWDarjtT1zdp7dc", KindStripe},
	{"TAVILY_API_KEY=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", "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", KindTavily},
	{"use 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 in the header", "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", KindTavily},
	{"FIRECRAWL_API_KEY=fc-0123456789abcdef0123456789abcdef", "fc-0123456789abcdef0123456789abcdef", KindFirecrawl},
	{"jina_0123456789abcdefABCDEF0123456789abcd is my key", "jina_0123456789abcdefABCDEF0123456789abcd", KindJina},
	{"HF_TOKEN=hf" + "_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "hf" + "_AbCdEfGhIjKlMnOpQrStUvWxYz012345", KindHuggingFace},
	{"//registry.npmjs.org/:_authToken=npm" + "_AbCdEf0123456789AbCdEf0123456789AbCd", "npm" + "_AbCdEf0123456789AbCdEf0123456789AbCd", KindNPM},
	{"cookie: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", KindJWT},
	{"https://api.exa.ai/search?q=go&api_key=5b0e8f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b", "5b0e8f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b", KindParam},
	{"https://bucket.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024&x=1", "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", KindParam},
	{"https://acct.blob.core.windows.net/c/b.txt?sv=2021-08-06&se=2030-01-01&sig=AbCdEf%2B123gHiJkL%3D", "AbCdEf%2B123gHiJkL%3D", KindParam},
	{"GET /callback?access_token=opaque-7f3a9c1e5b&state=xyz", "opaque-7f3a9c1e5b", KindParam},
	{"https://example.com/feed?token=a1b2c3d4&page=2", "a1b2c3d4", KindParam},
	{"curl 'https://api.example.com/v1?signature=Zm9vYmFyYmF6cXV4'", "Zm9vYmFyYmF6cXV4", KindParam},
	{"https://example.com/login?user=bob&password=hunter2", "hunter2", KindPassword},
	{"Server=db;User Id=sa;Password=Str0ng!Pass;Database=app", "Str0ng!Pass", KindPassword},
	{"DATABASE_URL=postgres://admin:S3cr3tP@ss@db.internal:5432/app", "S3cr3tP@ss", KindPassword},
	{"redis://:p4ssw0rd-redis@127.0.0.1:6379/0", "p4ssw0rd-redis", KindPassword},
	{"mongodb+srv://user:pw123456@cluster0.example.mongodb.net/?retryWrites=true", "pw123456", KindPassword},
	{"db_password: correct-horse-battery", "correct-horse-battery", KindPassword},
	{`{"user":"bob","password":"tr0ub4dor&3"}`, "tr0ub4dor", KindPassword},
	{"Authorization: Bearer abcDEF123456ghiJKL789mnoPQR", "abcDEF123456ghiJKL789mnoPQR", KindBearer},
	{"Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw==", KindBasicAuth},
	{"EXA_API_KEY=5b0e8f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b", "5b0e8f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b", KindGeneric},
	{`{"client_secret": "GOCSPX-AbCdEf123456GhIjKlMnOp"}`, "GOCSPX-AbCdEf123456GhIjKlMnOp", KindGeneric},
	{"X-Api-Key: 3c6e0b8a9c15224a8228b9a98ca1531d", "3c6e0b8a9c15224a8228b9a98ca1531d", KindGeneric},
	{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\n-----END RSA PRIVATE KEY-----\nafter", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi", KindPrivateKey},
	{"key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", KindPrivateKey},
	{"-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0000001CACb2\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBF0000001CACb2", KindPrivateKey},
}

var trueNegatives = []string{
	"how do I use sk-learn pipelines for risk-free task-based scheduling",
	"golang generics tutorial 2026",
	"https://example.com/search?q=golang+generics&page=2&sort=desc",
	"https://github.com/webgate-dev/webgate/commit/3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a",
	"commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a fixes the cache",
	"request 550e8400-e29b-41d4-a716-446655440000 failed with status 502",
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"set keyboard=qwerty and monkey=banana with sort_key=name",
	"the primary key: id of the table",
	"tokenizers and token economics; the bearer of bad news",
	"a basic understanding of Go is needed",
	"forgot your password? reset it from the settings page",
	"http://localhost:8080/path?x=1",
	"mail user@example.com or clone ssh://git@github.com/o/r.git or https://user@host.example/",
	"sk-1234 is too short, and so is ghp_short or AKIAFOOBAR",
	"eyJhbGciOiJIUzI1NiJ9 is only a header",
	"hf_hub_download and xoxo-gossip and ya29 and AIzaSy",
	"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
	"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ\n-----END CERTIFICATE-----",
	"the API key is read from your environment, never from the config",
	"?key=abc&token=xyz are too short to matter",
	"SECRET_KEY_BASE=development_secret_key_base_value",
	"fc-barcelona won 3-1; tvly-search is a tool name",
	"Die Straße ist nass; 東京の天気は晴れ",
	"error: tavily search: rate-limited (HTTP 429) [request 7f3a9c1e]",
	"go test -run TestConformance ./store/... -count=1",
	"price=1200&currency=EUR&utm_source=newsletter",
	"Bearer authentication is described in RFC 6750",
}

func TestRedactsTruePositives(t *testing.T) {
	for _, c := range truePositives {
		out := String(c.text)
		if strings.Contains(out, c.secret) {
			t.Errorf("secret left in %q", out)
		}
		if !strings.Contains(out, Marker(c.kind)) {
			t.Errorf("%q: want a %s marker in %q", c.text, c.kind, out)
		}
		if String(out) != out {
			t.Errorf("not idempotent: %q -> %q", out, String(out))
		}
	}
}

func TestLeavesTrueNegativesAlone(t *testing.T) {
	for _, s := range trueNegatives {
		if out := String(s); out != s {
			t.Errorf("changed ordinary text:\n in: %q\nout: %q", s, out)
		}
		if m := Find(s); len(m) != 0 {
			t.Errorf("Find(%q) = %v", s, m)
		}
	}
}

func TestKeepsTheTextAroundSecrets(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/search?q=go&api_key=5b0e8f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b&page=2": "https://example.com/search?q=go&api_key=[REDACTED:secret-param]&page=2",
		"postgres://app:hunter2hunter2@db:5432/app?sslmode=require":                           "postgres://app:[REDACTED:password]@db:5432/app?sslmode=require",
		"export TAVILY_API_KEY=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 # mine":               "export TAVILY_API_KEY=[REDACTED:tavily-key] # mine",
		"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----\nnext line": "[REDACTED:private-key]\nnext line",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestRedactsEveryOccurrenceOfASecretFound(t *testing.T) {
	in := "password=SuperSecret99 and later SuperSecret99 again"
	out := String(in)
	if strings.Contains(out, "SuperSecret99") {
		t.Fatalf("a repeated secret was left: %q", out)
	}
}

func TestOverlappingMatchesBecomeOneMarker(t *testing.T) {
	in := "https://x.test/?token=abc-sk-" + "proj-Ab3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7b"
	out := String(in)
	if out != "https://x.test/?token=[REDACTED:openai-key]" {
		t.Fatalf("got %q", out)
	}
}

func TestMarkersAreLeftAsTheyAre(t *testing.T) {
	for _, s := range []string{
		"token=[REDACTED:secret-param]",
		"postgres://u:[REDACTED:password]@h/db",
		"Authorization: Bearer [REDACTED:jwt]",
		"[REDACTED:openai-key][REDACTED:jwt]",
	} {
		if out := String(s); out != s {
			t.Errorf("String(%q) = %q", s, out)
		}
	}
}

func TestFindReportsKindsAndPositions(t *testing.T) {
	s := "a AKIA" + "IOSFODNN7EXAMPLE b gh" + "p_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s0x"
	got := Find(s)
	if len(got) != 2 || got[0].Kind != KindAWS || got[1].Kind != KindGitHub {
		t.Fatalf("Find = %v", got)
	}
	if s[got[0].Start:got[0].End] != "AKIA"+"IOSFODNN7EXAMPLE" {
		t.Fatalf("span %q", s[got[0].Start:got[0].End])
	}
}

var markerPattern = regexp.MustCompile(`\[REDACTED:[a-z0-9-]{1,40}\]`)

// checkProperties checks what String promises for one input.
func checkProperties(t *testing.T, in string) {
	out := String(in)
	if again := String(out); again != out {
		t.Fatalf("not idempotent:\n in: %q\nout: %q\nagain: %q", in, out, again)
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("valid UTF-8 in, invalid out: %q -> %q", in, out)
	}
	// Markers are replaced by a byte no secret contains next to a marker,
	// so that text on both sides of one cannot join into a false match.
	bare := markerPattern.ReplaceAllString(out, "\x00")
	for _, m := range Find(in) {
		secret := in[m.Start:m.End]
		if len(secret) >= minRepeat && strings.Contains(bare, secret) {
			t.Fatalf("secret %q (%s) left in output\n in: %q\nout: %q", secret, m.Kind, in, out)
		}
	}
}

func TestPropertiesHoldOnTheCorpus(t *testing.T) {
	for _, c := range truePositives {
		checkProperties(t, c.text)
		checkProperties(t, c.text+" "+c.text)
		checkProperties(t, c.secret+c.secret)
	}
	for _, s := range trueNegatives {
		checkProperties(t, s)
	}
}

func FuzzString(f *testing.F) {
	for _, c := range truePositives {
		f.Add(c.text)
	}
	for _, s := range trueNegatives {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 4096 {
			return
		}
		checkProperties(t, in)
	})
}

// FuzzStringAroundSecrets puts a corpus secret between fuzzed text, to
// explore how secrets interact with what surrounds them.
func FuzzStringAroundSecrets(f *testing.F) {
	f.Add("before ", uint8(0), " after")
	f.Add("?token=", uint8(1), "&x=1")
	f.Add("postgres://u:", uint8(5), "@h/db")
	f.Add("password=", uint8(30), "\n")
	f.Add("[REDACTED:", uint8(9), "]")
	f.Add("Bearer ", uint8(23), "")
	f.Fuzz(func(t *testing.T, prefix string, i uint8, suffix string) {
		if len(prefix)+len(suffix) > 2048 {
			return
		}
		c := truePositives[int(i)%len(truePositives)]
		checkProperties(t, prefix+c.secret+suffix)
		checkProperties(t, prefix+c.text+suffix+c.secret)
	})
}

func BenchmarkString(b *testing.B) {
	texts := []string{
		"golang generics tutorial 2026 site:go.dev",
		"https://example.com/search?q=go&api_key=5b0e8f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b&page=2",
		strings.Repeat("An ordinary paragraph of a fetched page, with words and numbers 1234. ", 20),
	}
	for _, s := range texts {
		b.Run(strings.Fields(s)[0][:min(8, len(strings.Fields(s)[0]))], func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				String(s)
			}
		})
	}
}
