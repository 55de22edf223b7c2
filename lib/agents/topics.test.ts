import { describe, expect, it } from "vitest";
import { EventTopic, TopicPattern, topicMatches } from "./topics";

describe("topic patterns", () => {
  it.each([
    ["orders.*", "orders.created", true],
    ["orders.*", "orders", false],
    ["orders.*", "orders.eu.created", false],
    ["orders.created", "orders.created", true],
    ["orders.created", "orders.updated", false],
    ["*.created", "orders.created", true],
    ["orders.>", "orders.created", true],
    ["orders.>", "orders.eu.created", true],
    ["orders.>", "orders", false],
    [">", "anything.at.all", true],
    ["orders", "orders.created", false],
  ])("%s against %s: %s", (pattern, topic, expected) => {
    expect(topicMatches(pattern, topic)).toBe(expected);
  });

  it("validates topics and patterns", () => {
    expect(EventTopic.safeParse("orders.created").success).toBe(true);
    expect(EventTopic.safeParse("orders..created").success).toBe(false);
    expect(EventTopic.safeParse("orders.*").success).toBe(false);
    expect(EventTopic.safeParse("a".repeat(201)).success).toBe(false);
    expect(TopicPattern.safeParse("orders.*").success).toBe(true);
    expect(TopicPattern.safeParse("orders.>").success).toBe(true);
    expect(TopicPattern.safeParse("orders.>.x").success).toBe(false);
    expect(TopicPattern.safeParse("orders.#").success).toBe(false);
  });
});
