"""The thin web layer: blueprints parse requests, call services and render."""
