import json

from django.core.management.base import BaseCommand

from interop_site.seed import seed


class Command(BaseCommand):
    help = "Seeds the Clearance interop user and applications; prints them (with secrets) as JSON."

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(seed()))
