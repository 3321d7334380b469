"""An install from before sign-up had rules has no administrator: its first account becomes it
(accounts.py), as a new install's first account does. An install with a superuser is left as it is."""

from django.conf import settings
from django.db import migrations


def first_account_administers(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    if User.objects.filter(is_superuser=True).exists():
        return
    first = User.objects.filter(is_active=True).order_by("pk").first()
    if first is not None:
        User.objects.filter(pk=first.pk).update(is_staff=True, is_superuser=True)


class Migration(migrations.Migration):
    dependencies = [
        ("memoryapp", "0005_memory_search_context"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(first_account_administers, migrations.RunPython.noop),
    ]
