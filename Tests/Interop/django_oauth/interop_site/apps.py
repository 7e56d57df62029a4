from django.apps import AppConfig


class InteropSiteConfig(AppConfig):
    name = "interop_site"
    default_auto_field = "django.db.models.BigAutoField"
