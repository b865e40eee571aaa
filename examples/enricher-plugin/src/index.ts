/**
 * toolplane-enricher-weather: an example third-party enricher package for Toolplane.
 *
 * @packageDocumentation
 * @since 0.1.0
 */
export { type WeatherEnricherOptions, weatherEnricher } from "./weatherEnricher.js"
