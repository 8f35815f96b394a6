"""The app's routes by area: the JSON API, and the pages."""
