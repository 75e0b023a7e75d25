/**
 * The sidecar's settings: {@link io.inferencecache.subscriber.config.SubscriberConfig} (every flag
 * and its default), their validation, checked once before anything starts ({@code
 * ConfigValidation}; the {@code --lora-adapter-names} grammar: {@code LoraAdapterNames}), and the
 * Go duration grammar of its flags ({@link io.inferencecache.configtext.GoDuration}).
 */
package io.inferencecache.subscriber.config;
