// Standard Webhooks signatures and secrets, checked against the specification's reference
// TypeScript library (npm standardwebhooks): its published test vector, and agreement on any input.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { SECRET_PREFIX, SignatureInputError, generateSecret, secretKeyBytes, signPayload, webhookHeaders } from "../../src/domain/events/signature.ts";

const secretArb = fc.uint8Array({ minLength: 24, maxLength: 64 }).map((b) => SECRET_PREFIX + Buffer.from(b).toString("base64"));
const idArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);

describe("signatures", () => {
  test("the reference library's test vector", () => {
    expect(signPayload("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}')).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("property: the same signature as the reference library for any secret, id, timestamp and body (UTF-8 included)", () => {
    fc.assert(
      fc.property(secretArb, idArb, fc.integer({ min: 0, max: 2 ** 40 }), fc.string({ unit: "grapheme", maxLength: 300 }), (secret, id, ts, body) => {
        return signPayload(secret, id, ts, body) === new Webhook(secret).sign(id, new Date(ts * 1000), body);
      }),
      { numRuns: 300 },
    );
  });

  test("while rotating: one v1 signature per secret, space-separated; a receiver with either secret verifies", () => {
    const [oldSecret, newSecret] = [generateSecret(randomBytes), generateSecret(randomBytes)];
    const body = '{"type":"ping","timestamp":"2026-01-15T14:30:00.000Z","data":{}}';
    const headers = webhookHeaders({ id: "evt_7", timestamp: Math.floor(Date.now() / 1000), body, secrets: [newSecret, oldSecret] });
    expect(headers["webhook-signature"].split(" ").map((s) => s.slice(0, 3))).toEqual(["v1,", "v1,"]);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret(randomBytes)).verify(body, { ...headers })).toThrow("No matching signature found");
    // The same secret twice signs once.
    expect(webhookHeaders({ id: "evt_7", timestamp: 1, body, secrets: [newSecret, newSecret] })["webhook-signature"].split(" ")).toHaveLength(1);
  });

  test("an id with a dot or a fractional timestamp cannot be signed (the parts are joined with dots)", () => {
    const s = generateSecret(randomBytes);
    expect(() => signPayload(s, "evt.1", 1, "{}")).toThrow(SignatureInputError);
    expect(() => signPayload(s, "evt_1", 1.5, "{}")).toThrow(SignatureInputError);
    expect(() => webhookHeaders({ id: "evt_1", timestamp: 1, body: "{}", secrets: [] })).toThrow(SignatureInputError);
  });
});

describe("secrets", () => {
  test("whsec_ + base64 of 32 bytes from the injected source; the reference library takes it", () => {
    const fixed = Uint8Array.from({ length: 32 }, (_, i) => i);
    const secret = generateSecret((n) => fixed.slice(0, n));
    expect(secret).toBe("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=");
    expect(Buffer.from(secretKeyBytes(secret))).toEqual(Buffer.from(fixed));
    const body = "{}";
    const ts = Math.floor(Date.now() / 1000);
    expect(new Webhook(secret).verify(body, webhookHeaders({ id: "evt_1", timestamp: ts, body, secrets: [secret] }) as never)).toEqual({});
    expect(() => generateSecret(() => new Uint8Array(16))).toThrow(RangeError);
  });

  test("a malformed secret is refused with a code, and the message never holds it", () => {
    const bad = ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not*base64!!", "whsec_c2hvcnQ=", "whsec_" + Buffer.alloc(65).toString("base64"), "whsec_"];
    for (const s of bad) {
      let err: SignatureInputError | null = null;
      try {
        secretKeyBytes(s);
      } catch (e) {
        err = e as SignatureInputError;
      }
      expect(err?.code).toBe("invalid_webhook_secret");
      expect(err!.message).not.toContain(s.slice(6) || "§");
    }
  });
});
