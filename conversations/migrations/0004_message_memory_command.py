from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0003_conversation_summary"),
    ]

    operations = [
        migrations.AddField(
            model_name="message",
            name="memory_command",
            field=models.JSONField(blank=True, default=None, null=True),
        ),
    ]
