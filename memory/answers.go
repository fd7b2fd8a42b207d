package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/webgate-dev/webgate/store"
)

// AnswerTTL is how long an answer prepared for a call waits for the
// call's next event.
const AnswerTTL = 10 * time.Minute

// Answers keeps answers prepared on one hook event for a later event of
// the same call, handled by another process (the hooks' replace style).
type Answers struct{ m *Memory }

// Answers returns the memory's answer box; nil when the memory has no
// store.
func (m *Memory) Answers() *Answers {
	if m == nil || m.opts.Store == nil {
		return nil
	}
	return &Answers{m}
}

func answerKey(callID string) string {
	sum := sha256.Sum256([]byte(callID))
	return "answer/" + hex.EncodeToString(sum[:16])
}

var errNoStore = errors.New("the store is not usable")

// Keep stores the answer of the call with the given ID for [AnswerTTL].
func (a *Answers) Keep(ctx context.Context, callID string, answer []byte) error {
	if a == nil || !a.m.live() {
		return errNoStore
	}
	return a.m.call(context.WithoutCancel(ctx), func(ctx context.Context, s *store.Store) error {
		return s.Set(ctx, answerKey(callID), answer, AnswerTTL)
	})
}

// Take returns the answer kept for the call and forgets it.
func (a *Answers) Take(ctx context.Context, callID string) ([]byte, bool) {
	if a == nil {
		return nil, false
	}
	var out []byte
	err := a.m.call(ctx, func(ctx context.Context, s *store.Store) error {
		e, err := s.Get(ctx, answerKey(callID))
		if err != nil {
			return err
		}
		out = e.Value
		return s.Delete(ctx, answerKey(callID))
	})
	return out, err == nil && out != nil
}
